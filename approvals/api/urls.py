"""Routes of the approvals and of the maker's requests that wait for them (under /api/)."""

from django.urls import path

from core import converters  # noqa: F401  registers <id:>, <code:>, <name:>, <serial:>, <day:>

from . import accounts, approvals, makers

urlpatterns = [
    path("approvals/", approvals.ApprovalList.as_view(), name="approval-list"),
    path("approvals/<id:approval>", approvals.ApprovalDetail.as_view(), name="approval-detail"),
    path("approvals/<id:approval>/confirm", approvals.ApprovalConfirm.as_view(), name="approval-confirm"),
    path("approvals/<id:approval>/reject", approvals.ApprovalReject.as_view(), name="approval-reject"),
    # The acts a second signature guards (moved here from games and cashier: same paths, same names).
    path("tables/<code:code>/opener", makers.TableOpenCounted.as_view(), name="table-open-counted"),
    path("tables/<code:code>/rules", makers.TableRulesChange.as_view(), name="table-rules-change"),
    path("patrons/<code:code>/pin-reset", makers.PatronPinReset.as_view(), name="patron-pin-reset"),
    path("tables/<code:code>/closer", makers.TableCloseCounted.as_view(), name="table-close-counted"),
    path("tables/<code:code>/slips", makers.SlipRequest.as_view(), name="slip-request"),
    path("tables/<code:code>/drop-removal", makers.DropRemoval.as_view(), name="drop-removal"),
    path("tronc/counts", makers.TipsCount.as_view(), name="tips-count"),
    path("staff/users/<name:username>/roles", accounts.RolesSet.as_view(), name="staff-user-roles"),
    path("staff/users/<name:username>/password-reset", accounts.PasswordReset.as_view(), name="staff-password-reset"),
    path("staff/users/<name:username>/reactivate", accounts.Reactivate.as_view(), name="staff-reactivate"),
    path("staff/users/<name:username>/leave", accounts.Leave.as_view(), name="staff-user-leave"),
    path("tables/<code:code>/drop-count", makers.DropCount.as_view(), name="drop-count"),
    path("tables/<code:code>/drop-count-reversal", makers.DropCountReversal.as_view(), name="drop-count-reversal"),
    path("rounds/<id:round_id>/reversal", makers.RoundReverse.as_view(), name="round-reversal"),
    path("rounds/<id:round_id>/void", makers.RoundVoid.as_view(), name="round-void"),
    path("cage/slips/<name:kind>/<serial:serial>/issue", makers.SlipIssue.as_view(), name="slip-issue"),
    path("cage/slips/<name:kind>/<serial:serial>/void", makers.SlipVoid.as_view(), name="slip-void"),
    path("cage/slips/<name:kind>/<serial:serial>/reverse", makers.SlipReverse.as_view(), name="slip-reverse"),
    path("cage/shifts/open", makers.CageShiftOpen.as_view(), name="cage-shift-open"),
    path("cage/shifts/close", makers.CageShiftClose.as_view(), name="cage-shift-close"),
    path("outages/<code:outage>/forms/<name:form>/coups", makers.PaperCoupEnter.as_view(), name="paper-coup-enter"),
    path(
        "outages/<code:outage>/forms/<name:form>/transactions",
        makers.PaperCageEnter.as_view(),
        name="paper-cage-enter",
    ),
    path("outages/<code:outage>/forms/<name:form>/slips", makers.PaperSlipEnter.as_view(), name="paper-slip-enter"),
    path(
        "outages/<code:outage>/forms/<name:form>/buy-ins", makers.PaperBuyInEnter.as_view(), name="paper-buy-in-enter"
    ),
    path(
        "outages/<code:outage>/forms/<name:form>/markers",
        makers.PaperMarkerEnter.as_view(),
        name="paper-marker-enter",
    ),
    path("cage/windows/transfers", makers.CageWindowTransfer.as_view(), name="cage-window-transfer"),
    path("markers/<serial:serial>/void", makers.MarkerVoid.as_view(), name="marker-void"),
]
