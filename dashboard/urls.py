"""The dashboard's URLs, under ``/dashboard/`` (casino/urls.py)."""

from django.urls import path

from core import converters  # noqa: F401  registers <id:>, <code:>, <name:>, <serial:>, <day:>

from . import comp_views, outage_views, protection_views, shift_views, views

app_name = "dashboard"

# One investigation of game protection (its id), and its note and close.
CASE = "protection/investigations/<id:investigation>/"

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
    path("patrons/<code:code>/comps", comp_views.comp_give_form, name="comp-give"),
    path("patrons/<code:code>/comps/<pos:position>/reverse", comp_views.comp_reverse_form, name="comp-reverse"),
    path("cage/", views.cage, name="cage"),
    # The pit boss's forms (dashboard.shift_views): each posts, then redirects back.
    path("open/", shift_views.table_open, name="open"),
    path("tables/<code:code>/limits", shift_views.limits_change, name="limits"),
    path("tables/<code:code>/slips", shift_views.slip_request, name="slip-request"),
    path("tables/<code:code>/slips/<name:kind>/<serial:serial>/accept", shift_views.slip_accept, name="slip-accept"),
    path(
        "tables/<code:code>/slips/<name:kind>/<serial:serial>/count",
        shift_views.slip_count_ask,
        name="slip-count",
    ),
    path("tables/<code:code>/slips/<name:kind>/<serial:serial>/refuse", shift_views.slip_refuse, name="slip-refuse"),
    path("tables/<code:code>/close", shift_views.table_close, name="close"),
    path("tables/<code:code>/ratings", shift_views.rating_record, name="rating"),
    path("tables/<code:code>/markers/payments", shift_views.marker_payment, name="marker-payment"),
    path("tables/<code:code>/markers", shift_views.marker_issue, name="marker-issue"),
    path("tables/<code:code>/front-money/draws", shift_views.front_money_draw, name="front-money-draw"),
    path("tables/<code:code>/ratings/start", shift_views.rating_start, name="rating-start"),
    path("tables/<code:code>/ratings/stop", shift_views.rating_stop, name="rating-stop"),
    path("coups/<id:round_id>/reversal", shift_views.coup_reversal, name="coup-reversal"),
    # Game protection: the day against the exact variance, and the investigations of its alarms.
    path("protection/", protection_views.protection, name="protection"),
    path("protection/investigations/open", protection_views.investigation_open, name="investigation-open"),
    path(CASE, protection_views.investigation, name="investigation"),
    path(CASE + "note", protection_views.investigation_note, name="investigation-note"),
    path(CASE + "close", protection_views.investigation_close, name="investigation-close"),
    # The pit boss's and the dealer's signatures, each from his own login.
    path("approvals/", shift_views.approvals, name="approvals"),
    path("outages/", outage_views.outages, name="outages"),
    path("outages/declare", outage_views.declare, name="outage-declare"),
    path("outages/forms.pdf", outage_views.blank_forms, name="outage-blank-forms"),
    path("outages/<code:outage>/end", outage_views.end, name="outage-end"),
    path("outages/<code:outage>/forms.pdf", outage_views.forms_of, name="outage-forms"),
    path("outages/<code:outage>/forms/<name:form>/coups", outage_views.paper_coup, name="outage-paper-coup"),
    path("outages/<code:outage>/forms/<name:form>/slips", outage_views.paper_slip, name="outage-paper-slip"),
    path("outages/<code:outage>/forms/<name:form>/buy-ins", outage_views.paper_buy_in, name="outage-paper-buy-in"),
    path("outages/<code:outage>/forms/<name:form>/markers", outage_views.paper_marker, name="outage-paper-marker"),
    path("outages/<code:outage>/forms/<name:form>/complete", outage_views.complete, name="outage-form-complete"),
    path("approvals/<id:approval>/approve", shift_views.approval_decide, {"decision": "approve"}, name="approve"),
    path("approvals/<id:approval>/refuse", shift_views.approval_decide, {"decision": "refuse"}, name="refuse"),
]

# Every page that needs the pit boss role (the access tests walk this list); the cage summary
# is the cage's and the auditor's, never the pit's (``views.CAGE_BOOK_READERS``).
PROTECTED = ["floor", "floor-live", "table", "table-live", "coup-audit", "patron-lookup", "patron", "open"]
