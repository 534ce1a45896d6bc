"""Routes of the cage, the table accounting and the reports (under /api/)."""

from django.urls import path

from . import accounting as views
from . import cage, reports

REPORTS = [
    ("table-games", reports.TableGamesReport),
    ("cage-accountability", reports.CageAccountabilityReport),
    ("variances", reports.VarianceReport),
    ("tronc", reports.TroncReport),
    ("unused-serials", reports.UnusedSerialsReport),
]

urlpatterns = [
    path("cage/open", cage.CageOpen.as_view(), name="cage-open"),
    path("cage/purchases", cage.ChipsPurchase.as_view(), name="chips-purchase"),
    path("cage/redemptions", cage.ChipsRedeem.as_view(), name="chips-redeem"),
    path("tables/<str:code>/opener", views.TableOpenCounted.as_view(), name="table-open-counted"),
    path("tables/<str:code>/closer", views.TableCloseCounted.as_view(), name="table-close-counted"),
    path("tables/<str:code>/slips", views.SlipRequest.as_view(), name="slip-request"),
    path("tables/<str:code>/drop-removal", views.DropRemoval.as_view(), name="drop-removal"),
    path("tables/<str:code>/drop-count", views.DropCount.as_view(), name="drop-count"),
    path("tables/<str:code>/drop-count-reversal", views.DropCountReversal.as_view(), name="drop-count-reversal"),
    path("rounds/<str:round_id>/reversal", views.RoundReverse.as_view(), name="round-reversal"),
    path("cage/slips/", views.SlipList.as_view(), name="slip-list"),
    path("cage/slips/<str:kind>/<str:serial>/issue", views.SlipIssue.as_view(), name="slip-issue"),
    path("cage/slips/<str:kind>/<str:serial>/accept", views.SlipAccept.as_view(), name="slip-accept"),
    path("cage/slips/<str:kind>/<str:serial>/void", views.SlipVoid.as_view(), name="slip-void"),
    path("cage/slips/<str:kind>/<str:serial>/reverse", views.SlipReverse.as_view(), name="slip-reverse"),
    path("cage/shifts/open", views.CageShiftOpen.as_view(), name="cage-shift-open"),
    path("cage/shifts/close", views.CageShiftClose.as_view(), name="cage-shift-close"),
    path("cage/gaming-days/close", views.GamingDayClose.as_view(), name="gaming-day-close"),
]
for slug, view in REPORTS:
    urlpatterns += [
        path(f"reports/{slug}", view.as_view(), name=f"report-{slug}"),
        path(f"reports/{slug}.csv", view.as_view(), {"csv": True}, name=f"report-{slug}-csv"),
        path(f"reports/{slug}.metadata.csv", view.as_view(), {"form": "metadata.csv"}, name=f"report-{slug}-meta"),
        path(f"reports/{slug}.xlsx", view.as_view(), {"form": "xlsx"}, name=f"report-{slug}-xlsx"),
    ]
