"""Cage and table accounting endpoints (issue #7): thin shells over the services and reports.

Writes (``CommandView``: 201 with the service's JSON; errors from ``core.errors``):
- ``POST /api/tables/<code>/opener`` and ``/closer``: open or close a table with its chips
  counted by denomination, confirmed by a dealer and a pit boss
- ``POST /api/tables/<code>/slips``: request a fill or credit; ``POST /api/cage/slips/<kind>/
  <serial>/issue | accept | void | reverse``
- ``POST /api/tables/<code>/drop-removal``, ``/drop-count``, ``/drop-count-reversal``
- ``POST /api/cage/shifts/open | close``, ``POST /api/cage/gaming-days/close``

Reads: ``GET /api/cage/slips/``, and the reports ``GET /api/reports/<name>`` (JSON) or
``/api/reports/<name>.csv`` (CSV download) with ``?gaming_day=YYYY-MM-DD`` (default: the
current gaming day).
"""

from rest_framework import generics, serializers

from core.views import CommandView
from games.models import Table
from games.services.corrections import round_reverse
from games.services.tables import table_close, table_open
from staff.permissions import roles_allowed
from staff.roles import ALL_ROLES, Role

from ..models import Slip
from ..services.cage_shifts import cage_shift_close, cage_shift_open
from ..services.count_room import drop_box_remove, drop_count, drop_count_reverse
from ..services.gaming_day import gaming_day_close
from ..services.slips import slip_accept, slip_issue, slip_request, slip_reverse, slip_void

PIT = {Role.PIT_BOSS}
FLOOR = {Role.PIT_BOSS, Role.DEALER}
CAGE = {Role.CASHIER, Role.CAGE_SUPERVISOR}
APPROVERS = {Role.PIT_BOSS, Role.CAGE_SUPERVISOR}
COUNT_ROOM = {Role.COUNT_TEAM}
# The accounting reads: supervisors, the cage, the count room, the auditor (not dealers, runners).
ACCOUNTING_READERS = ALL_ROLES - {Role.DEALER, Role.RUNNER}


class Count(serializers.DictField):
    """A count by denomination ``{"<cents>": pieces}``; the service checks the denominations
    and the pieces (400 naming the field)."""

    def __init__(self, **kwargs):
        super().__init__(child=serializers.JSONField(), **kwargs)


class TableOpenCounted(CommandView):
    """Open a table with its opener counted by chip denomination (dealer and pit boss confirm)."""

    permission_classes = [roles_allowed(write=PIT)]

    class Input(serializers.Serializer):
        game = serializers.ChoiceField(choices=Table.Game.choices)
        opener = Count()
        dealer = serializers.CharField(max_length=150)
        pit_boss = serializers.CharField(max_length=150)
        rules = serializers.DictField(required=False)

    input_serializer = Input

    def perform(self, data, *, code, **ctx):
        return table_open(code=code, **data, **ctx)


class TableCloseCounted(CommandView):
    """Close a table with its closer counted by chip denomination (the next opener)."""

    permission_classes = [roles_allowed(write=PIT)]
    success_status = 200

    class Input(serializers.Serializer):
        closer = Count()
        dealer = serializers.CharField(max_length=150)
        pit_boss = serializers.CharField(max_length=150)

    input_serializer = Input

    def perform(self, data, *, code, **ctx):
        return table_close(code=code, **data, **ctx)


class SlipRequest(CommandView):
    """A pit boss requests a fill or a credit for the table, by chip denomination."""

    permission_classes = [roles_allowed(write=PIT)]

    class Input(serializers.Serializer):
        # A plain string (the service answers 400 naming ``kind``): an enum here would clash
        # in the OpenAPI components with the patron's ``kind``.
        kind = serializers.CharField(max_length=6, help_text="fill | credit")
        denominations = Count()

    input_serializer = Input

    def perform(self, data, *, code, **ctx):
        return slip_request(table=code, **data, **ctx)


class SlipIssue(CommandView):
    """The cage issues the slip and names the runner who carries it."""

    permission_classes = [roles_allowed(write=CAGE)]
    success_status = 200

    class Input(serializers.Serializer):
        runner = serializers.CharField(max_length=150)

    input_serializer = Input

    def perform(self, data, *, kind, serial, **ctx):
        return slip_issue(kind=kind, serial=serial, **data, **ctx)


class SlipAccept(CommandView):
    """The table accepts the delivered slip: the chips move in the ledger."""

    # A dealer (or the table's device) accepts only at the table he is assigned to (issue #10).
    permission_classes = [roles_allowed(write=FLOOR, table="slip")]
    success_status = 200

    class Input(serializers.Serializer):
        pass

    input_serializer = Input

    def perform(self, data, *, kind, serial, **ctx):
        return slip_accept(kind=kind, serial=serial, **ctx)


class Signed(serializers.Serializer):
    reason = serializers.CharField(max_length=500)
    approver = serializers.CharField(max_length=150)


class SlipVoid(CommandView):
    """Void a requested or issued slip: a reason and a second signature."""

    permission_classes = [roles_allowed(write=PIT | CAGE)]
    success_status = 200
    input_serializer = Signed

    def perform(self, data, *, kind, serial, **ctx):
        return slip_void(kind=kind, serial=serial, **data, **ctx)


class SlipReverse(CommandView):
    """Reverse a delivered slip (storno) with a pit boss's or cage supervisor's approval."""

    permission_classes = [roles_allowed(write=PIT | CAGE)]
    success_status = 200
    input_serializer = Signed

    def perform(self, data, *, kind, serial, **ctx):
        return slip_reverse(kind=kind, serial=serial, **data, **ctx)


class RoundReverse(CommandView):
    """Reverse a settled coup (storno), signed by a pit boss and approved by another supervisor."""

    permission_classes = [roles_allowed(write=PIT)]
    success_status = 200
    input_serializer = Signed

    def perform(self, data, *, round_id, **ctx):
        return round_reverse(round_id=round_id, **data, **ctx)


class SlipSerializer(serializers.ModelSerializer):
    table = serializers.CharField(source="table.code")
    kind = serializers.CharField(help_text="fill | credit")
    state = serializers.CharField(help_text="requested | issued | delivered | voided | reversed")

    class Meta:
        model = Slip
        fields = [
            "kind",
            "serial",
            "table",
            "state",
            "amount_cents",
            "denominations",
            "requested_by",
            "issued_by",
            "runner",
            "accepted_by",
            "void_reason",
            "voided_by",
            "void_approved_by",
            "reversed_by",
            "reversal_approved_by",
            "gaming_day",
            "created_at",
        ]


class SlipList(generics.ListAPIView):
    """Every fill and credit slip, voided and reversed ones included (``?kind=&state=&table=``)."""

    permission_classes = [roles_allowed(read=ACCOUNTING_READERS | {Role.RUNNER})]
    serializer_class = SlipSerializer

    def get_queryset(self):
        slips = Slip.objects.select_related("table")
        for name, lookup in (("kind", "kind"), ("state", "state"), ("table", "table__code")):
            value = self.request.query_params.get(name)
            if value:
                slips = slips.filter(**{lookup: value})
        return slips


class GamingDayInput(serializers.Serializer):
    gaming_day = serializers.DateField()


class DropRemoval(CommandView):
    """Record the removal of the table's drop box for a gaming day."""

    permission_classes = [roles_allowed(write=PIT | COUNT_ROOM)]
    input_serializer = GamingDayInput

    def perform(self, data, *, code, **ctx):
        return drop_box_remove(table=code, **data, **ctx)


class DropCount(CommandView):
    """The count team enters the counted cash of a drop box, by banknote, with both counters."""

    permission_classes = [roles_allowed(write=COUNT_ROOM)]

    class Input(GamingDayInput):
        cash = Count()
        counters = serializers.ListField(child=serializers.CharField(max_length=150), min_length=2, max_length=2)

    input_serializer = Input

    def perform(self, data, *, code, **ctx):
        return drop_count(table=code, **data, **ctx)


class DropCountReversal(CommandView):
    """Reverse a mistaken drop count (approved by a pit boss or cage supervisor)."""

    permission_classes = [roles_allowed(write=COUNT_ROOM | APPROVERS)]

    class Input(GamingDayInput, Signed):
        pass

    input_serializer = Input

    def perform(self, data, *, code, **ctx):
        return drop_count_reverse(table=code, **data, **ctx)


class ShiftCount(serializers.Serializer):
    cash = Count()
    chips = Count()


class CageShiftOpen(CommandView):
    """Open a cage shift with its count of cash and chips by denomination."""

    permission_classes = [roles_allowed(write=CAGE)]
    input_serializer = ShiftCount

    def perform(self, data, **ctx):
        return cage_shift_open(**data, **ctx)


class CageShiftClose(CommandView):
    """Close the cage shift with its count, handing over to the next cashier."""

    permission_classes = [roles_allowed(write=CAGE)]
    success_status = 200

    class Input(ShiftCount):
        handover_to = serializers.CharField(max_length=150, required=False)
        variance_reason = serializers.CharField(
            max_length=500, required=False, help_text="why the count differs from the book, kept on the event"
        )

    input_serializer = Input

    def perform(self, data, **ctx):
        return cage_shift_close(**data, **ctx)


class GamingDayClose(CommandView):
    """Close a gaming day once all its tables are closed and counted (then seal it)."""

    permission_classes = [roles_allowed(write={Role.PIT_BOSS, Role.CAGE_SUPERVISOR, Role.ADMIN})]
    success_status = 200
    input_serializer = GamingDayInput

    def perform(self, data, **ctx):
        return gaming_day_close(**data, **ctx)
