"""The ledger tables (DESIGN.md §The ledger).

``Event`` and ``Posting`` are append-only: database triggers (migration 0002) reject UPDATE,
DELETE and TRUNCATE, and reject an event whose postings do not sum to zero per currency.
Only ``ledger.store.append`` writes them. ``AccountBalance`` and ``ProjectionCheckpoint``
are read models rebuilt from the events and may be rewritten freely.
"""

from django.db import models
from django.db.models import Manager, Q

from . import disowned


class AuthenticEvents(models.Manager):
    """Every event but those the application did not write (``ledger.disowned``)."""

    def get_queryset(self):
        queryset = super().get_queryset()
        left_out = disowned.positions()
        return queryset.exclude(position__in=left_out) if left_out else queryset


class AuthenticPostings(models.Manager):
    """Every posting but those of events the application did not write (``ledger.disowned``)."""

    def get_queryset(self):
        queryset = super().get_queryset()
        left_out = disowned.positions()
        return queryset.exclude(event_id__in=left_out) if left_out else queryset


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
    # NULL when none: the unique index below holds the keys only
    idempotency_key = models.CharField(max_length=200, null=True, blank=True)  # noqa: DJ001
    prev_hash = models.CharField(max_length=64)
    # Not indexed: no query looks an event up by its hash, and the chain (verify) is what holds
    # it to its content; its unique index (64 random characters) and the idempotency key's over
    # every NULL were a third of the server's work per inserted event (migration 0008),
    # enforcing nothing the position key does not.
    hash = models.CharField(max_length=64)
    # HMAC of the hash under a key outside the database (ledger.event_seals): what an event
    # INSERTed around the application, with a correct hash, lacks. "" before seals existed.
    seal = models.CharField(max_length=64, blank=True, default="", db_default="")

    # What every read uses; ``chain`` is every row, for the code that keeps the chain itself
    # (the store's head, verify, checkpoints, exports, a day's seal).
    objects = AuthenticEvents()
    chain = Manager()  # noqa: DJ012 (a second manager, which ruff takes for a field)

    class Meta:
        ordering = ["position"]
        constraints = [
            # Readers take "position > N" from 0: a row at 0 or below would be read by none of
            # them that checks (verify, the seal scan) yet counted by a plain sum of postings.
            models.CheckConstraint(condition=Q(position__gt=0), name="ledger_event_position_positive"),
            models.UniqueConstraint(fields=["stream", "version"], name="ledger_event_stream_version_uniq"),
            # Only the events that carry a key are in it (the first of a command's batch, when
            # the client sent one): a unique column indexed every event's NULL too.
            models.UniqueConstraint(
                fields=["idempotency_key"],
                condition=Q(idempotency_key__isnull=False),
                name="ledger_event_idempotency_key_uniq",
            ),
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

    objects = AuthenticPostings()
    chain = Manager()  # noqa: DJ012 (a second manager, which ruff takes for a field)

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


class ProjectionRebuild(models.Model):
    """The last rebuild of one projection started as a task (``ledger.rebuilds``): its state and
    progress, written by the worker while it runs (on a connection of its own: the rebuild's
    transaction shows nothing until it commits) and shown by ``GET /api/projections/``."""

    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"

    name = models.CharField(max_length=64, primary_key=True, help_text="the projection")
    state = models.CharField(max_length=16, choices=State.choices, default=State.QUEUED)
    events_done = models.BigIntegerField(default=0)
    events_total = models.BigIntegerField(default=0, help_text="the ledger head when the rebuild was asked for")
    queued_at = models.DateTimeField(help_text="UTC")
    started_at = models.DateTimeField(null=True, blank=True, help_text="UTC")
    progress_at = models.DateTimeField(null=True, blank=True, help_text="UTC, the last progress written")
    finished_at = models.DateTimeField(null=True, blank=True, help_text="UTC")
    error = models.TextField(blank=True, default="")
    requested_by = models.CharField(max_length=150, blank=True, default="")

    def __str__(self) -> str:
        return f"rebuild {self.name}: {self.state} {self.events_done}/{self.events_total}"


class AuditEntry(models.Model):
    """Projection: one event's line in the readable timelines of the patron, the table and the
    round its data names (``patron``, ``table``, ``round``: codes or round id; NULL for a
    timeline it is not in), with its position and hash. Its words are not stored: they are
    made from the event when the line is read (``ledger.projections.audit.timeline``).

    A timeline is read by one of the three columns in position order, through a partial index
    on it. One row an event, where a row per timeline wrote most events' summary, hash and
    moment three times: a rebuild wrote three lines an event, most of its work.
    """

    SCOPES = ("patron", "table", "round")

    position = models.BigIntegerField(primary_key=True, help_text="the event's ledger position")
    # NULL, not "": not in that timeline, and left out of its partial index, which any
    # ``column = key`` lookup can use (an equality implies IS NOT NULL to the planner).
    patron = models.CharField(max_length=64, null=True, help_text="patron code")  # noqa: DJ001
    table = models.CharField(max_length=64, null=True, help_text="table code")  # noqa: DJ001
    round = models.CharField(max_length=64, null=True, help_text="round id")  # noqa: DJ001
    type = models.CharField(max_length=80)
    hash = models.CharField(max_length=64)
    occurred_at = models.DateTimeField()
    gaming_day = models.DateField()

    class Meta:
        ordering = ["position"]
        indexes = [
            models.Index(
                fields=[scope, "position"], name=f"ledger_audit_{scope}", condition=Q(**{f"{scope}__isnull": False})
            )
            for scope in ("patron", "table", "round")
        ]

    def __str__(self) -> str:
        named = " ".join(f"{scope}:{key}" for scope in self.SCOPES if (key := getattr(self, scope)))
        return f"#{self.position} {named} {self.type}"


class TableDayStats(models.Model):
    """Projection: a table's figures for one gaming day (cents; win from the house's side)."""

    table = models.CharField(max_length=20)
    gaming_day = models.DateField()
    drop_cents = models.BigIntegerField(default=0)
    fills_cents = models.BigIntegerField(default=0)
    credits_cents = models.BigIntegerField(default=0)
    win_cents = models.BigIntegerField(default=0)
    handle_cents = models.BigIntegerField(default=0, help_text="total staked on settled bets")
    bets = models.PositiveIntegerField(default=0)
    coups = models.PositiveIntegerField(default=0)
    first_coup_at = models.DateTimeField(null=True)
    last_coup_at = models.DateTimeField(null=True)
    patrons = models.JSONField(default=list, help_text="codes of the patrons who played")
    theoretical_win = models.CharField(
        max_length=80, default="0", help_text="exact fraction of cents: Σ stake × the house edge of each settled bet"
    )

    class Meta:
        ordering = ["gaming_day", "table"]
        constraints = [models.UniqueConstraint(fields=["table", "gaming_day"], name="ledger_table_day_uniq")]

    def __str__(self) -> str:
        return f"{self.table} {self.gaming_day}"


class PatronDayRating(models.Model):
    """Projection: a patron's rating for one gaming day (cents; win from the house's side).

    ``theoretical_win`` is exact (a fraction of cents as text, e.g. "37000/37"): Σ stake × the
    house edge of each bet under its table's rules, as the engine computed it.
    """

    patron = models.CharField(max_length=20)
    gaming_day = models.DateField()
    bets = models.PositiveIntegerField(default=0)
    staked_cents = models.BigIntegerField(default=0)
    actual_win_cents = models.BigIntegerField(default=0)
    theoretical_win = models.CharField(max_length=80, default="0")
    first_bet_at = models.DateTimeField(null=True)
    last_bet_at = models.DateTimeField(null=True)

    class Meta:
        ordering = ["gaming_day", "patron"]
        constraints = [models.UniqueConstraint(fields=["patron", "gaming_day"], name="ledger_patron_day_uniq")]

    def __str__(self) -> str:
        return f"{self.patron} {self.gaming_day}"


class GamingDayExport(models.Model):
    """The scheduled export of a closed gaming day (``ledger.scheduled_export``): the outcome of
    its latest attempt. Not part of the ledger: a bookkeeping row rewritten at each attempt, so a
    failure shows on the pit boss's floor until a later attempt succeeds.

    ``seal_position``: the position of the seal the file was written from (a day sealed again
    is exported again); ``file``: the zip's path; ``sha256``: its digest; ``error``: why the
    last attempt failed (empty once exported)."""

    class State(models.TextChoices):
        EXPORTED = "exported", "exported"
        FAILED = "failed", "failed"

    gaming_day = models.DateField(primary_key=True)
    state = models.CharField(max_length=10, choices=State.choices)
    seal_position = models.BigIntegerField(null=True)
    file = models.CharField(max_length=500, blank=True, default="")
    sha256 = models.CharField(max_length=64, blank=True, default="")
    error = models.TextField(blank=True, default="")
    attempted_at = models.DateTimeField(help_text="UTC")
    exported_at = models.DateTimeField(null=True, help_text="UTC, of the file on disk")

    class Meta:
        ordering = ["gaming_day"]

    def __str__(self) -> str:
        return f"{self.gaming_day} {self.state}"


class LedgerIdentity(models.Model):
    """The one row naming this database's ledger, made with its first checkpoint
    (``ledger.checkpoints.identity``): ``ledger_id`` (32 hex, random), ``named_at`` (UTC) and
    ``head_at_naming``, the ledger's head position then. Signed checkpoints carry the id: a
    checkpoint of another ledger in the same directory is ignored, not failed.

    Append-only (triggers, as the ledger's), and a single row: ``one`` is always 1."""

    one = models.PositiveSmallIntegerField(primary_key=True, default=1)
    ledger_id = models.CharField(max_length=32)
    named_at = models.DateTimeField(help_text="UTC")
    head_at_naming = models.BigIntegerField(default=0)

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(one=1), name="ledger_identity_single_row")]

    def __str__(self) -> str:
        return self.ledger_id


class CheckpointRecord(models.Model):
    """A checkpoint file written (``ledger.checkpoints.write_checkpoint``): ``position``, ``hash``
    of the head it signed, ``file`` (its path under ``LEDGER_CHECKPOINT_DIR``), ``written_at``
    (UTC). The database's side of the anchor: a checkpoint file deleted or renamed is one whose
    record finds no file (``ledger verify``, the ``casino_ledger_checkpoints_missing`` gauge).
    Append-only (triggers, as the ledger's)."""

    position = models.BigIntegerField()
    hash = models.CharField(max_length=64)
    file = models.CharField(max_length=300)
    written_at = models.DateTimeField(help_text="UTC")

    class Meta:
        indexes = [models.Index(fields=["position"], name="ledger_checkpointrec_pos")]

    def __str__(self) -> str:
        return f"{self.position} {self.file}"


class ChainVerification(models.Model):
    """One walk of the whole chain (``manage.py ledger verify``): when it ended, whether the
    chain was whole, how many events it checked and, when broken, where and why. The latest
    is what the readiness probe reads (``ledger.health.chain``): a ledger found broken is no
    ledger to take bets on until someone has looked. Append-only, each row signed
    (``ledger.verification_records``)."""

    verified_at = models.DateTimeField(help_text="UTC")
    ok = models.BooleanField()
    checked = models.BigIntegerField(help_text="events verified before the first fault, or all")
    head_position = models.BigIntegerField()
    first_bad_position = models.BigIntegerField(null=True, blank=True)
    reason = models.CharField(max_length=500, blank=True, default="")
    signature = models.CharField(
        max_length=200, blank=True, default="", help_text="hex Ed25519 of the fields by the site's key"
    )

    def __str__(self) -> str:
        return f"{self.verified_at:%Y-%m-%d %H:%M} {'intact' if self.ok else 'broken'}"
