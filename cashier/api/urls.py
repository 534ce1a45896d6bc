"""Routes of the cage, the table accounting and the reports (under /api/)."""

from django.urls import path

from core import converters  # noqa: F401  registers <id:>, <code:>, <name:>, <serial:>, <day:>

from . import accounting as views
from . import backoffice_urls, cage, outage, reports

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
    path("cage/exchange-rates", cage.ExchangeRateSet.as_view(), name="exchange-rate-set"),
    path("cage/foreign-exchanges", cage.ForeignExchange.as_view(), name="foreign-exchange"),
    path("cage/slips/", views.SlipList.as_view(), name="slip-list"),
    path("cage/slips/<name:kind>/<serial:serial>/accept", views.SlipAccept.as_view(), name="slip-accept"),
    path("cage/gaming-days/close", views.GamingDayClose.as_view(), name="gaming-day-close"),
    path("outages/", outage.Outages.as_view(), name="outage-list"),
    path("outages/forms.pdf", outage.BlankForms.as_view(), name="outage-blank-forms"),
    path("outages/<code:outage>", outage.OutageDetail.as_view(), name="outage-detail"),
    path("outages/<code:outage>/end", outage.OutageEnd.as_view(), name="outage-end"),
    path("outages/<code:outage>/forms.pdf", outage.OutageForms.as_view(), name="outage-forms"),
    path(
        "outages/<code:outage>/forms/<name:form>/complete",
        outage.PaperFormComplete.as_view(),
        name="paper-form-complete",
    ),
]
for slug, view in REPORTS:
    urlpatterns += [
        path(f"reports/{slug}", view.as_view(), name=f"report-{slug}"),
        path(f"reports/{slug}.csv", view.as_view(), {"csv": True}, name=f"report-{slug}-csv"),
        path(f"reports/{slug}.metadata.csv", view.as_view(), {"form": "metadata.csv"}, name=f"report-{slug}-meta"),
        path(f"reports/{slug}.xlsx", view.as_view(), {"form": "xlsx"}, name=f"report-{slug}-xlsx"),
    ]
urlpatterns += backoffice_urls.urlpatterns  # the back office: tronc, credit, front money
