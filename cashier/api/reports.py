"""Report endpoints (JSON, or CSV with ``.csv``; ``?gaming_day=YYYY-MM-DD``): table games, cage
accountability, variances, tronc, unused serials."""

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from ledger.errors import InvalidInput
from ledger.gaming_day import current_gaming_day
from ledger.replica import reads_from_replica
from staff.permissions import roles_allowed

from .. import reports, spreadsheet
from ..services.count_room import parse_gaming_day
from .accounting import ACCOUNTING_READERS

# Each report documents the query parameters it reads, and only those (a parameter
# the schema lists is one the server reads and checks).
GAMING_DAY = OpenApiParameter("gaming_day", OpenApiTypes.DATE, description="default: the current gaming day")
THRESHOLD = OpenApiParameter(
    "threshold_cents", OpenApiTypes.INT, description="default: CASINO_VARIANCE_THRESHOLD_CENTS"
)
YEAR = OpenApiParameter("year", OpenApiTypes.INT, description="default: the current gaming day's year")
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def _query_int(request, name: str, default: int | None) -> int | None:
    raw = request.query_params.get(name)
    if raw in (None, ""):
        return default
    # ASCII digits only: str.isdigit() also says yes to "²", which int() refuses (a 500).
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 13:
        raise InvalidInput(f"{name} is a non-negative whole number", field=name)
    return int(raw)


class ReportView(APIView):
    """A report as JSON, or as a CSV download when the URL ends in ``.csv``."""

    permission_classes = [roles_allowed(read=ACCOUNTING_READERS)]
    slug = ""

    def build(self, request) -> dict:
        raise NotImplementedError

    def gaming_day(self, request):
        raw = request.query_params.get("gaming_day")
        return current_gaming_day() if raw in (None, "") else parse_gaming_day(raw)

    @extend_schema(
        responses={
            (200, "application/json"): OpenApiTypes.OBJECT,
            (200, "text/csv"): OpenApiTypes.STR,
            (200, XLSX): OpenApiTypes.BINARY,
        }
    )
    @reads_from_replica()
    def get(self, request, csv: bool = False, form: str = ""):
        """JSON; or, with ``form``: ``csv`` (the table), ``metadata.csv`` (its metadata),
        ``xlsx`` (both, one sheet each): spreadsheet-ready (``cashier.spreadsheet``)."""
        report = self.build(request)
        form = form or ("csv" if csv else "")
        if not form:
            return Response(report)
        if form == "xlsx":
            body, kind = spreadsheet.report_xlsx(report), XLSX
        elif form == "metadata.csv":
            body, kind = spreadsheet.metadata_csv(report), "text/csv; charset=utf-8"
        else:
            body, kind = spreadsheet.report_csv(report), "text/csv; charset=utf-8"
        response = HttpResponse(body, content_type=kind)
        stamp = report["period"]["to"]
        name = f"{self.slug}-{stamp}" + ("-metadata.csv" if form == "metadata.csv" else f".{form}")
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response


@extend_schema(parameters=[GAMING_DAY])
class TableGamesReport(ReportView):
    """Table games daily report: per table, per game, total; day, month- and year-to-date."""

    slug = "table-games"

    def build(self, request):
        return reports.table_games_daily_report(self.gaming_day(request))


@extend_schema(parameters=[GAMING_DAY])
class CageAccountabilityReport(ReportView):
    """The cage's book against its shift counts, and the day's movements through the cage."""

    slug = "cage-accountability"

    def build(self, request):
        return reports.cage_accountability_report(self.gaming_day(request))


@extend_schema(parameters=[GAMING_DAY, THRESHOLD])
class VarianceReport(ReportView):
    """Every variance of the day, flagged at ``?threshold_cents=`` (default: the setting)."""

    slug = "variances"

    def build(self, request):
        threshold = _query_int(request, "threshold_cents", None)
        return reports.variance_report(self.gaming_day(request), threshold)


@extend_schema(parameters=[GAMING_DAY])
class TroncReport(ReportView):
    """Tips to the staff pool: day, month-to-date, year-to-date."""

    slug = "tronc"

    def build(self, request):
        return reports.tronc_report(self.gaming_day(request))


@extend_schema(parameters=[YEAR])
class UnusedSerialsReport(ReportView):
    """Fill and credit serials never used (gaps) or voided, for ``?year=`` (default: this year)."""

    slug = "unused-serials"

    def build(self, request):
        year = _query_int(request, "year", current_gaming_day().year)
        if not 2000 <= year <= 9999:
            raise InvalidInput("year is between 2000 and 9999", field="year")
        return reports.unused_serials_report(year)
