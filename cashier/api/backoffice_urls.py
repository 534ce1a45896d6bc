"""Routes of the regulatory back office under /api/: tips (tronc), casino credit
(markers) and front money, drop custody."""

from django.urls import path

from core import converters  # noqa: F401  registers <id:>, <code:>, <name:>, <serial:>, <day:>

from . import credit, custody, tronc

REPORTS = [
    ("tips-book", tronc.TipsBookReport),
    ("tronc-shares", tronc.TroncSharesReport),
    ("credit-outstanding", credit.CreditOutstandingReport),
    ("master-game", custody.MasterGameReport),
]

urlpatterns = [
    path("tronc/shares", tronc.TroncShare.as_view(), name="tronc-share"),
    path("tables/<code:code>/drop-recount", custody.DropRecount.as_view(), name="drop-recount"),
    path("count-room/master-game/signatures", custody.MasterGameSign.as_view(), name="master-game-sign"),
    path("patrons/<code:code>/credit-line", credit.CreditLineSet.as_view(), name="credit-line-set"),
    path("patrons/<code:code>/markers", credit.MarkerIssue.as_view(), name="marker-issue"),
    path("markers/<serial:serial>/transfer", credit.MarkerTransfer.as_view(), name="marker-transfer"),
    path("markers/<serial:serial>/payments", credit.MarkerPay.as_view(), name="marker-pay"),
    path("markers/<serial:serial>/table-payments", credit.MarkerPayAtTable.as_view(), name="marker-pay-at-table"),
    path("patrons/<code:code>/front-money/deposits", credit.FrontMoneyDeposit.as_view(), name="front-money-deposit"),
    path(
        "patrons/<code:code>/front-money/withdrawals", credit.FrontMoneyWithdraw.as_view(), name="front-money-withdraw"
    ),
    path("patrons/<code:code>/front-money/draws", credit.FrontMoneyDraw.as_view(), name="front-money-draw"),
]
for slug, view in REPORTS:
    urlpatterns += [
        path(f"reports/{slug}", view.as_view(), name=f"report-{slug}"),
        path(f"reports/{slug}.csv", view.as_view(), {"csv": True}, name=f"report-{slug}-csv"),
    ]
