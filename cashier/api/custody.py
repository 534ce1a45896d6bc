"""Drop custody endpoints: the verifier's blind recount, the count team's
signature of the master game report, and the report."""

from drf_spectacular.utils import extend_schema

from core.views import CommandView
from staff.permissions import roles_allowed
from staff.roles import Role

from .. import custody_reports
from ..services.drop_custody import drop_recount, master_game_sign
from .accounting import Count, GamingDayInput
from .reports import GAMING_DAY, ReportView

COUNT_TEAM = frozenset({Role.COUNT_TEAM})


class DropRecount(CommandView):
    """The verifier's recount of a counted drop box, blind: the answer says only whether it
    agrees. A differing recount is a variance (``DropRecountVariance``), never an overwrite."""

    permission_classes = [roles_allowed(write=COUNT_TEAM)]

    class Input(GamingDayInput):
        cash = Count()

    input_serializer = Input

    def perform(self, data, *, code, **ctx):
        return drop_recount(table=code, **data, **ctx)


class MasterGameSign(CommandView):
    """A count team member signs the day's master game report. Event ``MasterGameReportSigned``."""

    permission_classes = [roles_allowed(write=COUNT_TEAM)]
    input_serializer = GamingDayInput

    def perform(self, data, **ctx):
        return master_game_sign(**data, **ctx)


@extend_schema(parameters=[GAMING_DAY])
class MasterGameReport(ReportView):
    """Each table's drop box of ``?gaming_day=``: removal, count, recount, and the signatures."""

    slug = "master-game"

    def build(self, request):
        return custody_reports.master_game_report(self.gaming_day(request))
