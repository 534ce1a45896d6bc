"""Staff API routes, included under /api/staff/ by casino/urls.py. A change to another's account
(roles, password reset, reactivation) needs a second admin: its routes are the approvals app's
(``approvals/api/accounts.py``, same prefix)."""

from django.urls import path

from core import converters  # noqa: F401  registers <id:>, <code:>, <name:>, <serial:>, <day:>

from . import assignments, devices, password, people

urlpatterns = [
    path("assignments/", assignments.AssignmentList.as_view(), name="staff-assignments"),
    path("assignments", assignments.AssignmentCreate.as_view(), name="staff-assign"),
    path("assignments/release", assignments.AssignmentRelease.as_view(), name="staff-release"),
    path("devices/", devices.DeviceList.as_view(), name="staff-devices"),
    path("devices", devices.DeviceIssue.as_view(), name="staff-device-issue"),
    path("devices/<name:name>/revoke", devices.DeviceRevoke.as_view(), name="staff-device-revoke"),
    path("password", password.PasswordChange.as_view(), name="staff-password"),
    path("access-review", people.AccessReview.as_view(), name="staff-access-review"),
    path("access-review.csv", people.AccessReview.as_view(), {"csv": True}, name="staff-access-review-csv"),
]
