"""Cage and table accounting endpoints: thin shells over the services and reports.

Writes (``CommandView``: 201 with the service's JSON; errors from ``core.errors``):
- ``POST /api/cage/slips/<kind>/<serial>/accept``
- ``POST /api/cage/gaming-days/close``

The writes that need a second signature (counted opener and closer, slip request, issue to a
runner, void and reversal, coup reversal, drop box removal, drop count and its reversal, a tip
box's count, a window's close handed over to the incoming cashier: ``POST /api/cage/shifts/close``,
its opening, verified by a cage supervisor when its count is off the count handed over:
``POST /api/cage/shifts/open``)
are the approvals app's (``approvals/api/makers.py``): the signers confirm them from their own
sessions.

Reads: ``GET /api/cage/slips/``, and the reports ``GET /api/reports/<name>`` (JSON) or
``/api/reports/<name>.csv`` (CSV download) with ``?gaming_day=YYYY-MM-DD`` (default: the
current gaming day).
"""

from rest_framework import generics, serializers

from core.ids import UsernameField
from core.views import CommandView, TextField
from staff.permissions import roles_allowed
from staff.roles import ALL_ROLES, Role

from ..models import Slip
from ..services.gaming_day import gaming_day_close
from ..services.slips import slip_accept

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


class SlipAccept(CommandView):
    """The slip's last step: a fill counted and accepted at the table, a credit received and
    counted at the cage (``count``: the count by denomination of whoever takes the chips, the
    slip's piece for piece; 400 on ``count`` otherwise). The chips move in the ledger."""

    # A dealer (or the table's device) accepts only at the table he is assigned to.
    permission_classes = [roles_allowed(write=FLOOR | CAGE, table="slip")]
    success_status = 200

    class Input(serializers.Serializer):
        count = Count(required=False, help_text='the chips counted {"<cents>": pieces}: the slip\'s, piece for piece')

    input_serializer = Input

    def perform(self, data, *, kind, serial, **ctx):
        return slip_accept(kind=kind, serial=serial, count=data.get("count"), **ctx)


class Signed(serializers.Serializer):
    reason = TextField(max_length=500)
    approver = UsernameField()


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


class ShiftCount(serializers.Serializer):
    cash = Count()
    chips = Count()


class GamingDayClose(CommandView):
    """Close a gaming day once all its tables are closed and counted (then seal it)."""

    permission_classes = [roles_allowed(write={Role.PIT_BOSS, Role.CAGE_SUPERVISOR, Role.ADMIN})]
    success_status = 200
    input_serializer = GamingDayInput

    def perform(self, data, **ctx):
        return gaming_day_close(**data, **ctx)
