"""Routes of the ledger's reads and the regulator's export (under /api/)."""

from django.urls import path

from core import converters  # noqa: F401  registers <id:>, <code:>, <name:>, <serial:>, <day:>

from . import exception_log, exports, ledger, protection

# One investigation of game protection (its id), and its note and close.
CASE = "protection/investigations/<id:investigation>/"

urlpatterns = [
    path("events/", ledger.EventList.as_view(), name="event-list"),
    path("balances/", ledger.BalanceList.as_view(), name="balance-list"),
    path("health/", ledger.Health.as_view(), name="health"),
    path("health/live", ledger.Liveness.as_view(), name="health-live"),
    path("health/ready", ledger.Readiness.as_view(), name="health-ready"),
    path("projections/", ledger.ProjectionStatus.as_view(), name="projection-status"),
    path("audit/exceptions/", exception_log.ExceptionLog.as_view(), name="exception-log"),
    path("audit/exceptions.csv", exception_log.ExceptionLog.as_view(), {"csv": True}, name="exception-log-csv"),
    path("projections/rebuild", ledger.ProjectionRebuildStart.as_view(), name="projection-rebuild"),
    path("audit/<name:scope>/<name:key>/", ledger.AuditTrail.as_view(), name="audit-trail"),
    path("stats/tables/", ledger.TableStatsList.as_view(), name="table-stats"),
    path("ratings/", ledger.RatingList.as_view(), name="patron-ratings"),
    path("protection/fluctuations/", protection.Fluctuations.as_view(), name="protection-fluctuations"),
    path("protection/investigations/", protection.Investigations.as_view(), name="investigations"),
    path(CASE, protection.Investigation.as_view(), name="investigation"),
    path(CASE + "notes", protection.InvestigationNote.as_view(), name="investigation-note"),
    path(CASE + "close", protection.InvestigationClose.as_view(), name="investigation-close"),
    path("exports/gaming-days/<day:day>.zip", exports.GamingDayExport.as_view(), name="gaming-day-export"),
]
