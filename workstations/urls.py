"""The workstations' URLs, under ``/workstations/`` (casino/urls.py)."""

from django.urls import path

from . import access, cage_views

app_name = "workstations"

urlpatterns = [
    path("login/", access.Login.as_view(), name="login"),
    path("logout/", access.Logout.as_view(), name="logout"),
    path("cage/", cage_views.cage, name="cage"),
    path("cage/shift/open", cage_views.shift_open, name="cage-shift-open"),
    path("cage/shift/close", cage_views.shift_close, name="cage-shift-close"),
    path("cage/chips/<str:operation>", cage_views.chips_movement, name="cage-chips"),
    path("cage/slips/<str:kind>/<str:serial>/issue", cage_views.issue, name="cage-issue"),
    path("cage/shifts/<int:opened_event>/", cage_views.shift, name="cage-shift"),
]
