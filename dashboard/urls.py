"""The dashboard's URLs, under ``/dashboard/`` (casino/urls.py)."""

from django.urls import path

from core import converters  # noqa: F401  registers <id:>, <code:>, <name:>, <serial:>, <day:>

from . import views

app_name = "dashboard"

urlpatterns = [
    path("", views.floor, name="floor"),
    path("_live", views.floor_live, name="floor-live"),
    path("login/", views.Login.as_view(), name="login"),
    path("logout/", views.Logout.as_view(), name="logout"),
    path("tables/<code:code>/", views.table, name="table"),
    path("tables/<code:code>/_live", views.table_live, name="table-live"),
    path("coups/<id:round_id>/audit/", views.coup_audit, name="coup-audit"),
    path("patrons/", views.patron_lookup, name="patron-lookup"),
    path("patrons/<code:code>/", views.patron, name="patron"),
    path("cage/", views.cage, name="cage"),
]

# Every page that needs the pit boss role (the access tests walk this list).
PROTECTED = ["floor", "floor-live", "table", "table-live", "coup-audit", "patron-lookup", "patron", "cage"]
