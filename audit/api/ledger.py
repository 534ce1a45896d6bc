"""Read-only ledger endpoints: the event browser, balances, projection health."""

import math
from fractions import Fraction

from django.db.models import Prefetch
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from basis.face_down import CARD_HIDDEN, hides_card, is_face_down, without_card_value
from core.ids import uuid_of
from core.pagination import StrictCursorPagination
from games.models import Round
from games.rules import event_words
from games.theory import EFFECTIVE_EDGE, effective_edge_pct, table_house_edge
from ledger import health, projections, rebuilds, withheld
from ledger.confidential import SUSPICION_CASES
from ledger.hashing import HASHED_FIELDS
from ledger.models import AccountBalance, AuditEntry, Event, PatronDayRating, Posting, TableDayStats
from ledger.projections import audit as audit_trails
from ledger.replica import ReplicaReads
from staff.permissions import LEDGER_READERS, NOBODY, roles_allowed
from staff.roles import Role, has_role

# Who reads the suspicion cases' events in the ledger's list: the compliance officer, and the
# regulator's auditor (who reads every event of a day on his own pages).
CASE_READERS = (Role.COMPLIANCE, Role.AUDITOR)


class PostingSerializer(serializers.ModelSerializer):
    class Meta:
        model = Posting
        fields = ["account", "amount_cents", "currency"]


class EventLines(serializers.ListSerializer):
    """A page of events: reads once which coups of its face-down cards are over (``_coups_over``)
    and from which ledger position hashes are withheld (``ledger.withheld``)."""

    def to_representation(self, data):
        events = list(data.all() if hasattr(data, "all") else data)
        self.child.rounds_over = _coups_over(e.data.get("round") for e in events if hides_card(e.data))
        self.child.hashes_from = withheld.hashes_withheld_from()
        self.child.paged = True
        return super().to_representation(events)


class EventSerializer(serializers.ModelSerializer):
    """An event as recorded, but for game protection: a card dealt face down (or a hole card)
    of a coup not yet settled or voided reads ``"card": null`` (and ``total``/``soft`` null
    when present) with ``"card_hidden": "face down until the coup is over"``; from that card
    onwards every event's ``hash`` and ``prev_hash`` read null with ``"hash_withheld": true``:
    a hash is of the data as recorded and chains every later one to it, so with the rest of the
    envelope shown, 52 guesses would find the card (``ledger.withheld``)."""

    postings = PostingSerializer(many=True, read_only=True)
    hash = serializers.CharField(read_only=True, allow_null=True, help_text="null while hash_withheld")
    prev_hash = serializers.CharField(read_only=True, allow_null=True, help_text="null while hash_withheld")
    hash_withheld = serializers.SerializerMethodField(
        help_text="true from the first face-down card of a coup in play onwards, until that coup is over"
    )
    rounds_over: frozenset[str] = frozenset()  # set per page by EventLines: a lone event reads its own
    hashes_from: int | None = None
    paged = False

    class Meta:
        model = Event
        fields = [*HASHED_FIELDS, "hash", "hash_withheld", "postings"]
        list_serializer_class = EventLines

    def get_hash_withheld(self, event) -> bool:
        if not self.paged:  # a lone event: the rule read from the ledger
            self.rounds_over = _coups_over([event.data.get("round")] if hides_card(event.data) else [])
            self.hashes_from = withheld.hashes_withheld_from()
            self.paged = True
        return not withheld.hash_shown(event.position, self.hashes_from)

    def to_representation(self, event):
        body = super().to_representation(event)
        if hides_card(event.data) and _uuid_text(event.data.get("round")) not in self.rounds_over:
            body["data"] = {**without_card_value(event.data), "card_hidden": CARD_HIDDEN}
        if body["hash_withheld"]:
            body["hash"] = body["prev_hash"] = None
        return body


class ByPosition(StrictCursorPagination):
    ordering = "position"
    page_size = 100

    def decode_cursor(self, request):
        try:
            return super().decode_cursor(request)
        except NotFound:
            raise ValidationError({"cursor": ["invalid cursor: use the next/previous links"]}) from None


class EventFilters(serializers.Serializer):
    stream = serializers.CharField(required=False, max_length=200)
    type = serializers.CharField(required=False, max_length=80)
    gaming_day = serializers.DateField(required=False)
    correlation_id = serializers.CharField(required=False, max_length=64)


@extend_schema(parameters=[EventFilters])
class EventList(ReplicaReads, generics.ListAPIView):
    """The ledger, in position order, filtered by stream, type, gaming day or correlation id."""

    permission_classes = [roles_allowed(read=LEDGER_READERS)]

    serializer_class = EventSerializer
    pagination_class = ByPosition

    def get_queryset(self):
        filters = EventFilters(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        events = Event.objects.filter(**filters.validated_data)
        if not has_role(self.request.user, *CASE_READERS):
            # A suspicion case is the compliance officer's: that one is open must not reach the
            # cage or the floor (the patron must not learn of it), even as an event's type.
            events = events.exclude(stream__startswith=SUSPICION_CASES)
        return events.prefetch_related(Prefetch("postings", queryset=Posting.objects.order_by("id")))


class BalanceSerializer(serializers.ModelSerializer):
    class Meta:
        model = AccountBalance
        fields = ["account", "currency", "balance_cents", "last_position"]


class BalanceList(ReplicaReads, generics.ListAPIView):
    """Projected account balances (cents); ``?prefix=table:R1:`` narrows them."""

    permission_classes = [roles_allowed(read=LEDGER_READERS)]

    serializer_class = BalanceSerializer

    def get_queryset(self):
        prefix = self.request.query_params.get("prefix", "")
        return AccountBalance.objects.filter(account__startswith=prefix)


class Health(APIView):
    """Liveness and projection lag (positions behind the ledger head)."""

    permission_classes = [AllowAny]
    throttle_classes: list = []  # probes poll often, from the balancer's one address

    @extend_schema(responses={200: dict})
    def get(self, request):
        return Response({"status": "ok", "projections": projections.lag()})


class Liveness(APIView):
    """Liveness: the process answers (no database, no broker). 200 ``{"status": "alive"}``."""

    permission_classes = [AllowAny]
    throttle_classes: list = []  # probes poll often, from the balancer's one address
    authentication_classes: list = []

    @extend_schema(responses={200: dict})
    def get(self, request):
        return Response({"status": "alive"})


class Readiness(APIView):
    """Readiness: database, broker, projection lag under ``HEALTH_MAX_PROJECTION_LAG``,
    no closed gaming day unsealed past ``HEALTH_SEAL_GRACE_HOURS``, the hash chain not found
    broken by its last verification (``chain``: a short reason, never where or why). 200 ``{"status": "ready",
    "failing": [], "checks": {...}}``, else 503 ``{"status": "not_ready", "failing": [names], ...}``
    (``ledger.health``)."""

    permission_classes = [AllowAny]
    throttle_classes: list = []  # probes poll often, from the balancer's one address
    authentication_classes: list = []

    @extend_schema(responses={200: dict, 503: dict})
    def get(self, request):
        result = health.readiness()
        body = {"status": "ready" if result["ready"] else "not_ready", **result}
        del body["ready"]
        response = Response(body, status=200 if result["ready"] else 503)
        if not result["checks"]["database"]["ok"]:
            # The balancer probes every few seconds: an outage is logged once (ledger.outage),
            # not as an error a probe (Django's log_response skips a response marked logged).
            response._has_been_logged = True
        return response


class ProjectionStatus(APIView):
    """Each projection's checkpoint, the ledger head and the lag between them (positions), and
    its last rebuild started as a task (``rebuild``, null if none): ``state`` (queued, running,
    succeeded, failed), ``events_done`` / ``events_total``, ``percent``, ``events_per_second``,
    ``seconds_left``, ``queued_at`` / ``started_at`` / ``finished_at`` (UTC), ``error``,
    ``requested_by`` (``ledger.rebuilds.rebuild_status``)."""

    permission_classes = [roles_allowed(read=LEDGER_READERS)]

    @extend_schema(responses={200: dict})
    def get(self, request):
        rebuilding = rebuilds.rebuild_status()
        rows = [{**row, "rebuild": rebuilding.get(row["projection"])} for row in projections.lag()]
        return Response({"projections": rows})


class ProjectionRebuildRequest(serializers.Serializer):
    projections = serializers.ListField(
        child=serializers.ChoiceField(choices=projections.names()),
        required=False,
        allow_empty=False,
        help_text="the projections to rebuild (default: all)",
    )


class ProjectionRebuildStart(APIView):
    """Rebuild projections from position 0 as Celery tasks, one a projection, in parallel
    (``ledger.rebuilds.rebuild_request``). 202 ``{"queued": [names]}``; follow them in
    ``GET /api/projections/``. 400 naming ``projections``; 409 when one is already rebuilding;
    403 for any role but the administrator's."""

    permission_classes = [roles_allowed(read=NOBODY, write={Role.ADMIN})]

    @extend_schema(request=ProjectionRebuildRequest, responses={202: dict})
    def post(self, request):
        body = ProjectionRebuildRequest(data=request.data)
        body.is_valid(raise_exception=True)
        queued = rebuilds.rebuild_request(
            names=body.validated_data.get("projections"), actor=request.user.get_username()
        )
        return Response({"queued": queued}, status=202)


def _rounds_over(lines) -> frozenset[str]:
    """The ids of the coups, among those of ``lines``' face-down cards, that are settled or
    voided: one query for a page of lines (none when it has no face-down card)."""
    return _coups_over(line.round for line in lines if is_face_down(line.type, line.data) and line.round)


def _coups_over(round_ids) -> frozenset[str]:
    """The ids (canonical text) of the coups among ``round_ids`` that are settled or voided:
    one query (none for no valid id; an id that is no UUID is left out)."""
    keys = set()
    for round_id in round_ids:
        try:
            keys.add(uuid_of(round_id))
        except ValueError:
            continue
    if not keys:
        return frozenset()
    over = Round.objects.filter(pk__in=keys, state__in=[Round.State.SETTLED, Round.State.VOIDED])
    return frozenset(str(key) for key in over.values_list("pk", flat=True))


class AuditLines(serializers.ListSerializer):
    """A page of audit lines: reads once which of its coups are over (``_rounds_over``)."""

    def to_representation(self, data):
        lines = list(data.all() if hasattr(data, "all") else data)
        self.child.rounds_over = _rounds_over(lines)
        self.child.hashes_from = withheld.hashes_withheld_from()
        return super().to_representation(lines)


class AuditEntrySerializer(serializers.ModelSerializer):
    summary = serializers.SerializerMethodField(
        help_text="the event in words; a card dealt face down without its value until its coup is settled or voided"
    )
    hash = serializers.SerializerMethodField(
        help_text="the event's hash; null from the first card dealt face down of a coup in play onwards, "
        "until that coup is settled or voided (with the rest of the event, 52 guesses would find the card)"
    )
    hash_withheld = serializers.SerializerMethodField(help_text="true while the hash reads null for that reason")
    rounds_over: frozenset[str] = frozenset()  # set per page by AuditLines: a lone line hides
    hashes_from: int | None = 0  # set per page by AuditLines: a lone line withholds its hash

    class Meta:
        model = AuditEntry
        fields = ["position", "type", "summary", "hash", "hash_withheld", "occurred_at", "gaming_day"]
        list_serializer_class = AuditLines

    def _over(self, line, data: dict) -> bool:
        return is_face_down(line.type, data) and bool(line.round) and _uuid_text(line.round) in self.rounds_over

    def get_summary(self, line) -> str:
        data = line.data if isinstance(line.data, dict) else {}
        return event_words.line(line.type, data, round_over=self._over(line, data))

    def get_hash_withheld(self, line) -> bool:
        return not withheld.hash_shown(line.position, self.hashes_from)

    def get_hash(self, line) -> str | None:
        return None if self.get_hash_withheld(line) else line.hash


def _uuid_text(value: object) -> str | None:
    try:
        return str(uuid_of(value))
    except ValueError:
        return None


class AuditTrail(ReplicaReads, generics.ListAPIView):
    """The timeline of a patron, a table or a round, oldest first, with positions and hashes."""

    permission_classes = [roles_allowed(read=LEDGER_READERS)]

    serializer_class = AuditEntrySerializer

    def get_queryset(self):
        scope = self.kwargs["scope"]
        if scope not in AuditEntry.SCOPES:
            raise NotFound(f"no audit trail kind {scope!r}")
        return audit_trails.timeline(scope, self.kwargs["key"])


class DayFilter(serializers.Serializer):
    gaming_day = serializers.DateField(required=False)


class TableDayStatsSerializer(serializers.ModelSerializer):
    hold_pct = serializers.SerializerMethodField(help_text="win / drop × 100, 2 decimals; null without drop")
    house_edge = serializers.SerializerMethodField(
        help_text="the house edge of the table's rules in force, a decimal fraction of the stake as text "
        '("0.027027" = 2.7027 %); null for a table unknown to the games'
    )
    house_edge_basis = serializers.SerializerMethodField(help_text="how the edge was found, and on which bet")
    theoretical_win_cents = serializers.SerializerMethodField(
        help_text="Σ stake × house edge of every bet settled that day, in cents, rounded half up from the exact value"
    )
    theoretical_edge_pct = serializers.SerializerMethodField(
        help_text=f"the effective edge, {EFFECTIVE_EDGE}; in %, 2 decimals as text; null without a handle"
    )
    average_bet_cents = serializers.SerializerMethodField()
    coups_per_hour = serializers.SerializerMethodField()
    patron_count = serializers.SerializerMethodField()

    class Meta:
        model = TableDayStats
        fields = [
            "table",
            "gaming_day",
            "drop_cents",
            "fills_cents",
            "credits_cents",
            "win_cents",
            "hold_pct",
            "handle_cents",
            "bets",
            "average_bet_cents",
            "coups",
            "coups_per_hour",
            "patron_count",
            "house_edge",
            "house_edge_basis",
            "theoretical_win_cents",
            "theoretical_edge_pct",
            "first_coup_at",
            "last_coup_at",
        ]

    def _edge(self, row):
        edges = self.context.setdefault("house_edges", {})
        if row.table not in edges:
            edges[row.table] = table_house_edge(row.table)
        return edges[row.table]

    def get_house_edge(self, row) -> str | None:
        edge = self._edge(row)
        return str(edge[0]) if edge else None

    def get_house_edge_basis(self, row) -> str | None:
        edge = self._edge(row)
        return edge[1] if edge else None

    def get_theoretical_win_cents(self, row) -> int:
        return _round_half_up(Fraction(row.theoretical_win))

    def get_theoretical_edge_pct(self, row) -> str | None:
        return effective_edge_pct(Fraction(row.theoretical_win), row.handle_cents)

    def get_hold_pct(self, row) -> str | None:
        return f"{row.win_cents * 100 / row.drop_cents:.2f}" if row.drop_cents else None

    def get_average_bet_cents(self, row) -> int | None:
        return row.handle_cents // row.bets if row.bets else None

    def get_coups_per_hour(self, row) -> str | None:
        if not row.coups or not row.first_coup_at or row.last_coup_at == row.first_coup_at:
            return None
        return f"{row.coups * 3600 / (row.last_coup_at - row.first_coup_at).total_seconds():.1f}"

    def get_patron_count(self, row) -> int:
        return len(row.patrons)


@extend_schema(parameters=[DayFilter])
class TableStatsList(ReplicaReads, generics.ListAPIView):
    """Table statistics per gaming day (cents; hold = win / drop)."""

    permission_classes = [roles_allowed(read=LEDGER_READERS)]

    serializer_class = TableDayStatsSerializer

    def get_queryset(self):
        filters = DayFilter(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        return TableDayStats.objects.filter(**filters.validated_data)


def _round_half_up(value: Fraction) -> int:
    """Whole cents, a half cent rounded up (7501/2 → 3751, -7501/2 → -3750)."""
    return math.floor(value + Fraction(1, 2))


class PatronDayRatingSerializer(serializers.ModelSerializer):
    theoretical_win_cents = serializers.SerializerMethodField(
        help_text="Σ stake × house edge of the patron's settled bets, in cents, rounded half up (½ cent → 1) from "
        "the exact fraction the ledger keeps"
    )
    average_bet_cents = serializers.SerializerMethodField()
    seconds_played = serializers.SerializerMethodField()

    class Meta:
        model = PatronDayRating
        fields = [
            "patron",
            "gaming_day",
            "bets",
            "staked_cents",
            "average_bet_cents",
            "actual_win_cents",
            "theoretical_win_cents",
            "first_bet_at",
            "last_bet_at",
            "seconds_played",
        ]

    def get_theoretical_win_cents(self, row) -> int:
        return _round_half_up(Fraction(row.theoretical_win))

    def get_average_bet_cents(self, row) -> int | None:
        return row.staked_cents // row.bets if row.bets else None

    def get_seconds_played(self, row) -> int:
        return int((row.last_bet_at - row.first_bet_at).total_seconds()) if row.first_bet_at else 0


class RatingFilter(DayFilter):
    patron = serializers.CharField(required=False, max_length=20)


@extend_schema(parameters=[RatingFilter])
class RatingList(ReplicaReads, generics.ListAPIView):
    """Patron ratings per gaming day: actual and theoretical win from the house's side."""

    permission_classes = [roles_allowed(read=LEDGER_READERS)]

    serializer_class = PatronDayRatingSerializer

    def get_queryset(self):
        filters = RatingFilter(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        return PatronDayRating.objects.filter(**filters.validated_data)
