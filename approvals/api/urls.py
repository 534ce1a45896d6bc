"""Routes of the approvals and of the maker's requests that wait for them (under /api/)."""

from django.urls import path

from . import approvals, makers

urlpatterns = [
    path("approvals/", approvals.ApprovalList.as_view(), name="approval-list"),
    path("approvals/<str:approval>", approvals.ApprovalDetail.as_view(), name="approval-detail"),
    path("approvals/<str:approval>/confirm", approvals.ApprovalConfirm.as_view(), name="approval-confirm"),
    path("approvals/<str:approval>/reject", approvals.ApprovalReject.as_view(), name="approval-reject"),
    # The acts a second signature guards (moved here from games and cashier: same paths, same names).
    path("tables/<str:code>/open", makers.TableOpen.as_view(), name="table-open"),
    path("tables/<str:code>/opener", makers.TableOpenCounted.as_view(), name="table-open-counted"),
    path("tables/<str:code>/closer", makers.TableCloseCounted.as_view(), name="table-close-counted"),
    path("tables/<str:code>/slips", makers.SlipRequest.as_view(), name="slip-request"),
    path("tables/<str:code>/drop-count", makers.DropCount.as_view(), name="drop-count"),
    path("tables/<str:code>/drop-count-reversal", makers.DropCountReversal.as_view(), name="drop-count-reversal"),
    path("rounds/<str:round_id>/reversal", makers.RoundReverse.as_view(), name="round-reversal"),
    path("cage/slips/<str:kind>/<str:serial>/issue", makers.SlipIssue.as_view(), name="slip-issue"),
    path("cage/slips/<str:kind>/<str:serial>/void", makers.SlipVoid.as_view(), name="slip-void"),
    path("cage/slips/<str:kind>/<str:serial>/reverse", makers.SlipReverse.as_view(), name="slip-reverse"),
]
