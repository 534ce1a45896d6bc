"""Fill and credit slips: the paper trail of chips moving between cage and table.

A slip is ``requested → issued → delivered``, or ``voided`` (from requested or issued, with a
reason and two signatures); a delivered slip that was a mistake is ``reversed`` by a
correcting event (storno) that names it. Nothing is ever deleted: voided and reversed slips
stay listed. The model mirrors the slip's ledger stream ``slip/<kind>/<serial>``; the
services in ``cashier.services.slips`` flip the state and append the event together.
"""

from django.db import models
from django_fsm import ConcurrentTransitionMixin, FSMField, transition


class Slip(ConcurrentTransitionMixin, models.Model):
    class Kind(models.TextChoices):
        FILL = "fill"
        CREDIT = "credit"

    class State(models.TextChoices):
        REQUESTED = "requested"
        ISSUED = "issued"
        DELIVERED = "delivered"
        VOIDED = "voided"
        REVERSED = "reversed"

    kind = models.CharField(max_length=6, choices=Kind.choices)
    serial = models.CharField(max_length=11, help_text="YYYY-NNNNNN, sequential within the year, one series per kind")
    year = models.PositiveSmallIntegerField()
    number = models.PositiveIntegerField(help_text="sequence number within the year and kind, from 1")
    table = models.ForeignKey("games.Table", on_delete=models.PROTECT, related_name="slips")
    denominations = models.JSONField(help_text='{"<denomination cents>": count}')
    amount_cents = models.PositiveBigIntegerField()
    state = FSMField(default=State.REQUESTED, choices=State.choices, protected=True)
    requested_by = models.CharField(max_length=150)
    issued_by = models.CharField(max_length=150, blank=True)
    runner = models.CharField(max_length=150, blank=True)
    accepted_by = models.CharField(max_length=150, blank=True)
    void_reason = models.CharField(max_length=500, blank=True)
    voided_by = models.CharField(max_length=150, blank=True)
    void_approved_by = models.CharField(max_length=150, blank=True)
    reversed_by = models.CharField(max_length=150, blank=True)
    reversal_approved_by = models.CharField(max_length=150, blank=True)
    gaming_day = models.DateField(help_text="gaming day of the request")
    version = models.PositiveIntegerField(default=0, help_text="version of stream slip/<kind>/<serial>")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["kind", "year", "number"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "year", "number"], name="cashier_slip_serial_uniq"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.serial} ({self.state})"

    @property
    def stream(self) -> str:
        return f"slip/{self.kind}/{self.serial}"

    @transition(field=state, source=State.REQUESTED, target=State.ISSUED)
    def issue(self) -> None:
        pass

    @transition(field=state, source=State.ISSUED, target=State.DELIVERED)
    def deliver(self) -> None:
        pass

    @transition(field=state, source=[State.REQUESTED, State.ISSUED], target=State.VOIDED)
    def void(self) -> None:
        pass

    @transition(field=state, source=State.DELIVERED, target=State.REVERSED)
    def reverse(self) -> None:
        pass
