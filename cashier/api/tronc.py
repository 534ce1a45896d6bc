"""Tips (tronc) endpoints: a tip box's count, the share-out, the tips book and the shares."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers

from core.ids import CodeField, UsernameField
from core.views import CommandView
from staff.permissions import roles_allowed
from staff.roles import Role

from .. import tronc_reports
from ..services.tronc import tips_count, tronc_share
from .accounting import Count, GamingDayInput
from .reports import GAMING_DAY, ReportView

# Who enters a tips count: the people who count tip boxes and the managers who witness it.
TIPS_COUNTERS = frozenset({Role.COUNT_TEAM, Role.CASHIER, Role.CAGE_SUPERVISOR, Role.PIT_BOSS})


class TipBox(serializers.Serializer):
    table = CodeField(required=False)
    dealer = UsernameField(required=False)

    def validate(self, attrs):
        if len(attrs) != 1:
            raise serializers.ValidationError('a tip box is {"table": "<code>"} or {"dealer": "<username>"}')
        return attrs


class TipsCount(CommandView):
    """Count a tip box (a table's, or a dealer's toke) into the tronc: two counters or more and
    a manager, the user entering it one of them. Event ``TipsCounted``: tronc +total."""

    permission_classes = [roles_allowed(write=TIPS_COUNTERS)]

    class Input(GamingDayInput):
        box = TipBox()
        chips = Count(required=False, default=dict)
        cash = Count(required=False, default=dict)
        counters = serializers.ListField(child=UsernameField(), min_length=2, max_length=20)
        manager = UsernameField()

    input_serializer = Input

    def perform(self, data, **ctx):
        return tips_count(**data, **ctx)


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
