"""Patrons: the registry (code, kind), identity for AML and the self-limit.

What both the cage and the tables need to know about a patron. Identity (name, document) is
personal data: it lives here, under access control, never in the ledger, which names patrons
by ``code`` only (DESIGN.md §The ledger).
"""

from django.db import models
from django.db.models.functions import Upper

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
        db_table = "cashier_patron"  # the table predates the patrons app; kept to move no data
        ordering = ["code"]
        constraints = [
            # One identity document belongs to one patron (letter case aside); many have none.
            models.UniqueConstraint(Upper("document"), condition=~models.Q(document=""), name="patron_document_unique")
        ]

    def __str__(self) -> str:
        return self.code

    @property
    def chips_account(self) -> str:
        return accounts.patron_chips(self.code)


class SelfLimit(models.Model):
    """A patron's own maximum bet (responsible gaming, RULES.md §Baccarat), in cents.

    One row per patron, keyed by the patron's code so that the check every bet placement makes
    (``patrons.services.self_limit.check_self_limit``) is one primary-key lookup. Set through
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
        db_table = "cashier_selflimit"
        constraints = [
            models.CheckConstraint(condition=models.Q(max_bet_cents__gt=0), name="cashier_self_limit_positive")
        ]

    def __str__(self) -> str:
        return f"self-limit of {self.patron_id}: {self.max_bet_cents} cents"
