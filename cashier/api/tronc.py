"""Tips (tronc) endpoints: the share-out, the tips book and the shares. A tip box's count
(``POST /api/tronc/counts``) is signed by each counter and the manager from his own session:
its endpoint is the approvals app's (``approvals/api/makers.py``)."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers

from core.ids import CodeField, UsernameField
from core.views import CommandView
from staff.permissions import roles_allowed
from staff.roles import Role

from .. import tronc_reports
from ..services.tronc import tronc_share
from .reports import GAMING_DAY, ReportView

# Who asks for a tips count (``approvals``): the people who count tip boxes and the managers
# who witness it.
TIPS_COUNTERS = frozenset({Role.COUNT_TEAM, Role.CASHIER, Role.CAGE_SUPERVISOR, Role.PIT_BOSS})


class TipBox(serializers.Serializer):
    """A tip box: ``{"table": "<code>"}`` or ``{"dealer": "<username>"}`` (his toke box)."""

    table = CodeField(required=False)
    dealer = UsernameField(required=False)

    def validate(self, attrs):
        if len(attrs) != 1:
            raise serializers.ValidationError('a tip box is {"table": "<code>"} or {"dealer": "<username>"}')
        return attrs


class ShareLine(serializers.Serializer):
    username = UsernameField()
    points = serializers.IntegerField(min_value=0, max_value=1_000, required=False)


class TroncShare(CommandView):
    """Share the whole tronc out by points (cage supervisor); a person's points default to the
    scheme by role (setting ``CASINO_TRONC_POINTS_BY_ROLE``). Event ``TroncShared``."""

    permission_classes = [roles_allowed(write={Role.CAGE_SUPERVISOR})]

    class Input(serializers.Serializer):
        staff = serializers.ListField(child=ShareLine(), min_length=1, max_length=500)

    input_serializer = Input

    def perform(self, data, **ctx):
        return tronc_share(staff=[dict(line) for line in data["staff"]], **ctx)


@extend_schema(parameters=[GAMING_DAY])
class TipsBookReport(ReportView):
    """The tips book of ``?gaming_day=``: every tip box counted, with the day's and month's totals."""

    slug = "tips-book"

    def build(self, request):
        return tronc_reports.tips_book(self.gaming_day(request))


@extend_schema(parameters=[GAMING_DAY])
class TroncSharesReport(ReportView):
    """The tronc's share-outs by person: the day and the month to date."""

    slug = "tronc-shares"

    def build(self, request):
        return tronc_reports.tronc_shares(self.gaming_day(request))
