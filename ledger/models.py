"""The ledger tables (DESIGN.md §The ledger).

``Event`` and ``Posting`` are append-only: database triggers (migration 0002) reject UPDATE,
DELETE and TRUNCATE, and reject an event whose postings do not sum to zero per currency.
Only ``ledger.store.append`` writes them. ``AccountBalance`` and ``ProjectionCheckpoint``
are read models rebuilt from the events and may be rewritten freely.
"""

from django.db import models


class Event(models.Model):
    """One row of the event store: the full envelope, hash-chained to its predecessor."""

    position = models.BigIntegerField(primary_key=True, help_text="global, gap-free, commit order")
    stream = models.CharField(max_length=200)
    version = models.PositiveIntegerField(help_text="1-based version within the stream")
    type = models.CharField(max_length=80, help_text="PascalCase past tense, e.g. BetPlaced")
    schema_version = models.PositiveSmallIntegerField(default=1)
    data = models.JSONField()
    occurred_at = models.DateTimeField(help_text="business time, UTC")
    recorded_at = models.DateTimeField(help_text="database time at append, UTC")
    gaming_day = models.DateField()
    actor = models.CharField(max_length=150)
    correlation_id = models.CharField(max_length=64, blank=True, default="")
    causation_id = models.CharField(max_length=64, blank=True, default="")
    idempotency_key = models.CharField(max_length=200, null=True, blank=True, unique=True)
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64, unique=True)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["stream", "version"], name="ledger_event_stream_version_uniq"),
        ]
        indexes = [
            models.Index(fields=["type", "position"], name="ledger_event_type_idx"),
            models.Index(fields=["gaming_day", "position"], name="ledger_event_day_idx"),
            models.Index(fields=["correlation_id"], name="ledger_event_corr_idx"),
        ]

    def __str__(self) -> str:
        return f"#{self.position} {self.stream}@{self.version} {self.type}"


class Posting(models.Model):
    """One leg of an event's double entry: debit positive, credit negative, integer cents."""

    event = models.ForeignKey(Event, on_delete=models.PROTECT, related_name="postings")
    account = models.CharField(max_length=200)
    amount_cents = models.BigIntegerField()
    currency = models.CharField(max_length=3)

    class Meta:
        ordering = ["event_id", "id"]
        indexes = [models.Index(fields=["account", "currency"], name="ledger_posting_account_idx")]

    def __str__(self) -> str:
        return f"{self.account} {self.amount_cents:+d} {self.currency}"


class IdempotencyRecord(models.Model):
    """The first result of a request made with an idempotency key (append-only too).

    A retry with the same key and the same request returns ``result``; the same key with a
    different request (``fingerprint`` differs) is refused.
    """

    key = models.CharField(max_length=200, primary_key=True)
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of the canonical request")
    result = models.JSONField()
    position = models.BigIntegerField(null=True, help_text="first event appended by the request")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.key


class AccountBalance(models.Model):
    """Projection: the balance of one account in one currency, in cents."""

    account = models.CharField(max_length=200)
    currency = models.CharField(max_length=3)
    balance_cents = models.BigIntegerField(default=0)
    last_position = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["account", "currency"]
        constraints = [
            models.UniqueConstraint(fields=["account", "currency"], name="ledger_balance_account_uniq"),
        ]

    def __str__(self) -> str:
        return f"{self.account} {self.balance_cents} {self.currency}"


class ProjectionCheckpoint(models.Model):
    """The last event position a projector has applied; saved with its rows."""

    name = models.CharField(max_length=64, primary_key=True)
    position = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.name}@{self.position}"
