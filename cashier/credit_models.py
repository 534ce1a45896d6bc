"""Casino credit: a patron's credit line and the markers issued against it.

Both mirror ledger streams written by ``cashier.services.credit`` (``credit/<patron>``,
``marker/<serial>``); the money is on the ledger (``patron:<P>:credit``, ``cage:markers``).
"""

from django.db import models
from django_fsm import ConcurrentTransitionMixin, FSMField, transition


class CreditLine(models.Model):
    """The credit a cage supervisor approved for a patron: markers outstanding stay within it."""

    patron = models.OneToOneField("patrons.Patron", on_delete=models.PROTECT, related_name="credit_line")
    limit_cents = models.PositiveBigIntegerField()
    approved_by = models.CharField(max_length=150)
    approved_at = models.DateTimeField()
    version = models.PositiveIntegerField(default=0, help_text="version of stream credit/<patron>")

    def __str__(self) -> str:
        return f"credit line of {self.patron_id}: {self.limit_cents} cents"


class Marker(ConcurrentTransitionMixin, models.Model):
    """A marker: ``at_table`` (issued at a table, in its drop box) → ``at_cage`` (transferred;
    or issued at the cage) → ``paid`` (paid in full, at the cage or at a table by the pit boss,
    maybe in several payments); or ``voided`` (issued in error, before any payment: with its
    reason, asked by one person and signed by a cage supervisor from his own login)."""

    class State(models.TextChoices):
        AT_TABLE = "at_table"
        AT_CAGE = "at_cage"
        PAID = "paid"
        VOIDED = "voided"

    serial = models.CharField(max_length=12, unique=True, help_text="YYYY-NNNNNN, sequential within the year")
    year = models.PositiveSmallIntegerField()
    number = models.PositiveIntegerField(help_text="sequence number within the year, from 1")
    patron = models.ForeignKey("patrons.Patron", on_delete=models.PROTECT, related_name="markers")
    amount_cents = models.PositiveBigIntegerField()
    paid_cents = models.PositiveBigIntegerField(default=0)
    table_code = models.CharField(max_length=20, blank=True, help_text="the table it was issued at; blank: the cage")
    state = FSMField(default=State.AT_CAGE, choices=State.choices, protected=True)
    issued_by = models.CharField(max_length=150)
    issued_at = models.DateTimeField()
    gaming_day = models.DateField()
    version = models.PositiveIntegerField(default=0, help_text="version of stream marker/<serial>")
    void_reason = models.CharField(max_length=500, blank=True)
    voided_by = models.CharField(max_length=150, blank=True, help_text="who asked for the void")
    void_approved_by = models.CharField(max_length=150, blank=True, help_text="the cage supervisor who signed it")
    voided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["year", "number"]
        constraints = [models.UniqueConstraint(fields=["year", "number"], name="cashier_marker_number_uniq")]

    def __str__(self) -> str:
        return f"marker {self.serial} ({self.state})"

    @property
    def stream(self) -> str:
        return f"marker/{self.serial}"

    @property
    def outstanding_cents(self) -> int:
        return self.amount_cents - self.paid_cents

    @transition(field=state, source=State.AT_TABLE, target=State.AT_CAGE)
    def transfer(self) -> None:
        """The marker leaves the table's drop for the cage."""

    @transition(field=state, source=[State.AT_TABLE, State.AT_CAGE], target=State.PAID)
    def settle(self) -> None:
        """The last payment (at the cage, or at a table while still in its drop) brings what is
        owed to nothing."""

    @transition(field=state, source=[State.AT_TABLE, State.AT_CAGE], target=State.VOIDED)
    def void(self) -> None:
        """Issued in error: the marker's receivable is reversed; nothing is owed on it."""
