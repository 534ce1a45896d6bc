"""Staff API routes, included under /api/staff/ by casino/urls.py."""

from django.urls import path

from core import converters  # noqa: F401  registers <id:>, <code:>, <name:>, <serial:>, <day:>

from . import assignments, devices, people, roles

urlpatterns = [
    path("assignments/", assignments.AssignmentList.as_view(), name="staff-assignments"),
    path("assignments", assignments.AssignmentCreate.as_view(), name="staff-assign"),
    path("assignments/release", assignments.AssignmentRelease.as_view(), name="staff-release"),
    path("devices/", devices.DeviceList.as_view(), name="staff-devices"),
    path("devices", devices.DeviceIssue.as_view(), name="staff-device-issue"),
    path("devices/<name:name>/revoke", devices.DeviceRevoke.as_view(), name="staff-device-revoke"),
    path("users/<name:username>/roles", roles.UserRoles.as_view(), name="staff-user-roles"),
    path("users/<name:username>/leave", people.UserLeave.as_view(), name="staff-user-leave"),
    path("access-review", people.AccessReview.as_view(), name="staff-access-review"),
    path("access-review.csv", people.AccessReview.as_view(), {"csv": True}, name="staff-access-review-csv"),
]
