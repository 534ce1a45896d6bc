"""Patrons: the registry (code, kind), identity for AML and the self-limit.

What both the cage and the tables need to know about a patron. Identity (name, document) is
personal data: it lives here, under access control, never in the ledger, which names patrons
by ``code`` only (DESIGN.md §The ledger).
"""

from django.db import models

from ledger import accounts

from .documents import document_key
from .names import name_key

# The longest key a document may have (``document_key`` can expand a compatibility character to
# several letters); the registration services refuse a longer one.
DOCUMENT_KEY_LENGTH = 200


class Patron(models.Model):
    class Kind(models.TextChoices):
        IDENTIFIED = "identified"
        ANONYMOUS = "anonymous"

    code = models.CharField(max_length=20, unique=True, help_text="ledger id: P00001, or 'anon' for unrated play")
    kind = models.CharField(max_length=12, choices=Kind.choices)
    name = models.CharField(max_length=200, blank=True)
    document = models.CharField(max_length=100, blank=True, help_text="identity document (AML)")
    document_key = models.CharField(
        max_length=DOCUMENT_KEY_LENGTH,
        blank=True,
        default="",
        editable=False,
        help_text="patrons.documents.document_key(document): the document as compared, blank when there is none",
    )
    name_key = models.TextField(
        blank=True,
        default="",
        editable=False,
        help_text="patrons.names.name_key(name): the name as searched, accents and case aside; blank without one",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "cashier_patron"  # the table predates the patrons app; kept to move no data
        ordering = ["code"]
        constraints = [
            # One identity document belongs to one patron, however it is typed (letter case,
            # spaces, hyphens, full-width or invisible characters aside); many have none.
            models.UniqueConstraint(
                fields=["document_key"], condition=~models.Q(document_key=""), name="patron_document_key_unique"
            )
        ]

    def __str__(self) -> str:
        return self.code

    def save(self, *args, **kwargs):
        # The keys are derived: any writer through the model gets them right (the services' updates
        # set them themselves, and ``patrons.identity`` reports a row whose key is not its
        # document's or its name's).
        self.document_key = document_key(self.document)
        self.name_key = name_key(self.name)
        fields = kwargs.get("update_fields")
        if fields is not None:
            derived = {"document": "document_key", "name": "name_key"}
            kwargs["update_fields"] = {*fields, *(key for field, key in derived.items() if field in fields)}
        super().save(*args, **kwargs)

    @property
    def chips_account(self) -> str:
        return accounts.patron_chips(self.code)


class SelfLimit(models.Model):
    """A patron's own maximum bet (responsible gaming, RULES.md §Baccarat), in cents.

    One row per patron, keyed by the patron's code so that the check every bet placement makes
    (``patrons.services.self_limit.check_self_limit``) is one primary-key lookup. Set through
    ``self_limit_set`` only (it appends ``SelfLimitSet`` on ``patron/<code>``), at most once in
    each week that starts Friday 00:00 at GMT-5 (sheet 002: "heure de l'Est, soit GMT-5", a fixed
    offset: 05:00 UTC all year); ``week_start`` is the start of the week of the last change, in
    UTC. ``max_bet_cents`` is the limit in force since that change; a raise waits for the next
    reset (``pending_max_bet_cents`` from ``pending_from``), a reduction applies at once.
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
    week_start = models.DateTimeField(help_text="Friday 00:00 GMT-5 of the week of the last change (UTC)")
    set_at = models.DateTimeField(help_text="when the patron last changed it (UTC)")
    pending_max_bet_cents = models.PositiveBigIntegerField(
        null=True, blank=True, help_text="a raise asked for, in force from pending_from (the next weekly reset)"
    )
    pending_from = models.DateTimeField(null=True, blank=True, help_text="when the pending raise takes effect (UTC)")

    class Meta:
        db_table = "cashier_selflimit"
        constraints = [
            models.CheckConstraint(condition=models.Q(max_bet_cents__gt=0), name="cashier_self_limit_positive")
        ]

    def __str__(self) -> str:
        return f"self-limit of {self.patron_id}: {self.max_bet_cents} cents"


class PatronPin(models.Model):
    """The PIN a patron confirms his self-limit changes with (sheet 002: "validez la modification
    en entrant votre code PIN"), as a salted hash from Django's password hashers, never the PIN.

    Set at the cage with the patron's identity document shown (``patron_pin_set``); checked by
    ``self_limit_set``. ``failed_attempts`` counts wrong PINs in a row; the fifth locks the PIN
    until the cage resets it (``patrons.services.self_limit.patron_pin_reset``, two logins);
    ``locked_until``: a timed lock of earlier rules, still honoured.
    """

    patron = models.OneToOneField(
        Patron, on_delete=models.PROTECT, to_field="code", primary_key=True, related_name="pin"
    )
    pin_hash = models.CharField(max_length=128, help_text="django.contrib.auth.hashers.make_password of the PIN")
    set_at = models.DateTimeField(help_text="when the cage last set it (UTC)")
    failed_attempts = models.PositiveSmallIntegerField(default=0, help_text="wrong PINs in a row")
    locked_until = models.DateTimeField(null=True, blank=True, help_text="no PIN is checked before this (UTC)")

    def __str__(self) -> str:
        return f"PIN of {self.patron_id}"  # never the hash
