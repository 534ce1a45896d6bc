"""Staff API routes, included under /api/staff/ by casino/urls.py."""

from django.urls import path

from . import api

urlpatterns = [
    path("assignments/", api.AssignmentList.as_view(), name="staff-assignments"),
    path("assignments", api.AssignmentCreate.as_view(), name="staff-assign"),
    path("assignments/release", api.AssignmentRelease.as_view(), name="staff-release"),
    path("devices/", api.DeviceList.as_view(), name="staff-devices"),
    path("devices", api.DeviceIssue.as_view(), name="staff-device-issue"),
    path("devices/<str:name>/revoke", api.DeviceRevoke.as_view(), name="staff-device-revoke"),
    path("users/<str:username>/roles", api.UserRoles.as_view(), name="staff-user-roles"),
]
