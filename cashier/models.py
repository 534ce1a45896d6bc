"""Patrons, the cage and colour-chip stacks.

Identity (name, document) is personal data: it lives here, under access control, never in
the ledger, which names patrons by ``code`` only (DESIGN.md §The ledger).
"""

from django.db import models
from django_fsm import ConcurrentTransitionMixin, FSMField, transition

from ledger import accounts


class Patron(models.Model):
    class Kind(models.TextChoices):
        IDENTIFIED = "identified"
        ANONYMOUS = "anonymous"

    code = models.CharField(max_length=20, unique=True, help_text="ledger id: P00001, or 'anon' for unrated play")
    kind = models.CharField(max_length=12, choices=Kind.choices)
    name = models.CharField(max_length=200, blank=True)
    document = models.CharField(max_length=100, blank=True, help_text="identity document (AML)")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["code"]

    def __str__(self) -> str:
        return self.code

    @property
    def chips_account(self) -> str:
        return accounts.patron_chips(self.code)


class Cage(ConcurrentTransitionMixin, models.Model):
    """The cashier's cage: cash and value-chip inventory. ``closed → open → closed``."""

    class State(models.TextChoices):
        CLOSED = "closed"
        OPEN = "open"

    code = models.CharField(max_length=20, unique=True, default="main")
    state = FSMField(default=State.CLOSED, choices=State.choices, protected=True)
    version = models.PositiveIntegerField(default=0, help_text="version of stream cage/<code>")

    def __str__(self) -> str:
        return f"cage {self.code} ({self.state})"

    @property
    def stream(self) -> str:
        return f"cage/{self.code}"

    @transition(field=state, source=State.CLOSED, target=State.OPEN)
    def open(self) -> None:
        pass

    @transition(field=state, source=State.OPEN, target=State.CLOSED)
    def close(self) -> None:
        pass


class ColourStack(ConcurrentTransitionMixin, models.Model):
    """A patron's colour chips at one English roulette table (RULES.md §Roulette).

    One colour per seated patron, at most ``max_colours`` (8) active per table; the unit value
    of one chip is chosen at buy-in. Valid only at that table; ``change_inverse`` turns what is
    left back into value chips.
    """

    class State(models.TextChoices):
        ACTIVE = "active"
        CHANGED_BACK = "changed_back"

    table = models.ForeignKey("games.Table", on_delete=models.PROTECT, related_name="colour_stacks")
    patron = models.ForeignKey(Patron, on_delete=models.PROTECT, related_name="colour_stacks")
    colour = models.CharField(max_length=20)
    unit_value_cents = models.PositiveBigIntegerField()
    state = FSMField(default=State.ACTIVE, choices=State.choices, protected=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["table_id", "colour"]
        constraints = [
            models.UniqueConstraint(
                fields=["table", "colour"], condition=models.Q(state="active"), name="cashier_one_active_colour"
            ),
            models.UniqueConstraint(
                fields=["table", "patron"], condition=models.Q(state="active"), name="cashier_one_colour_per_patron"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.colour} at {self.table_id} ({self.patron_id})"

    @transition(field=state, source=State.ACTIVE, target=State.CHANGED_BACK)
    def change_back(self) -> None:
        pass


class SelfLimit(models.Model):
    """A patron's own maximum bet (responsible gaming, RULES.md §Baccarat), in cents.

    One row per patron, keyed by the patron's code so that the check every bet placement makes
    (``cashier.services.self_limit.check_self_limit``) is one primary-key lookup. Set through
    ``self_limit_set`` only (it appends ``SelfLimitSet`` on ``patron/<code>``), at most once in
    each week that starts Friday 00:00 America/New_York; ``week_start`` is the start of the week of
    the last change, in UTC.
    """

    patron = models.OneToOneField(
        Patron,
        on_delete=models.PROTECT,
        to_field="code",
        db_column="patron_code",
        primary_key=True,
        related_name="self_limit",
    )
    max_bet_cents = models.PositiveBigIntegerField(help_text="the largest total stake of one bet placement")
    week_start = models.DateTimeField(help_text="Friday 00:00 New York of the week of the last change (UTC)")
    set_at = models.DateTimeField(help_text="when the patron last changed it (UTC)")

    class Meta:
        constraints = [
            models.CheckConstraint(condition=models.Q(max_bet_cents__gt=0), name="cashier_self_limit_positive")
        ]

    def __str__(self) -> str:
        return f"self-limit of {self.patron_id}: {self.max_bet_cents} cents"


from .slip_models import Slip  # noqa: E402, F401 - fill and credit slips (issue #7)
