"""The workstations' URLs, under ``/workstations/`` (casino/urls.py)."""

from django.urls import path

from core import converters  # noqa: F401  registers <id:>, <code:>, <name:>, <serial:>, <day:>

from . import (
    access,
    audit_event_list,
    audit_views,
    cage_views,
    compliance_views,
    count_room_views,
    report_views,
    runner_views,
    tronc_views,
)

app_name = "workstations"

urlpatterns = [
    path("login/", access.Login.as_view(), name="login"),
    path("logout/", access.Logout.as_view(), name="logout"),
    path("cage/", cage_views.cage, name="cage"),
    path("cage/shift/open", cage_views.shift_open, name="cage-shift-open"),
    path("cage/shift/close", cage_views.shift_close, name="cage-shift-close"),
    path("cage/chips/<name:operation>", cage_views.chips_movement, name="cage-chips"),
    path("cage/foreign-exchange", cage_views.foreign_exchange_view, name="cage-foreign-exchange"),
    path("cage/exchange-rate", cage_views.exchange_rate, name="cage-exchange-rate"),
    path("cage/slips/<name:kind>/<serial:serial>/issue", cage_views.issue, name="cage-issue"),
    path("cage/credits/<serial:serial>/receive", cage_views.credit_receive, name="cage-credit-receive"),
    path("cage/patrons/register", cage_views.patron_register, name="cage-patron-register"),
    path("cage/patrons/pin", cage_views.patron_pin, name="cage-patron-pin"),
    path("cage/patrons/pin-reset", cage_views.patron_pin_reset, name="cage-patron-pin-reset"),
    path("cage/patrons/self-limit", cage_views.patron_self_limit, name="cage-patron-self-limit"),
    path("cage/lines/<pos:event>/reverse", cage_views.reverse_line, name="cage-reverse"),
    path("cage/transfers", cage_views.transfer, name="cage-transfer"),
    path("cage/markers/<serial:serial>/void", cage_views.marker_void, name="cage-marker-void"),
    path("cage/approvals/<id:approval>/<name:decision>", cage_views.decide, name="cage-decide"),
    path("cage/shifts/<pos:opened_event>/", cage_views.shift, name="cage-shift"),
    path("cage/tronc/", tronc_views.tronc, name="cage-tronc"),
    path("cage/tronc/share", tronc_views.share, name="cage-tronc-share"),
    path("audit/", audit_views.days, name="audit-days"),
    path("audit/days/<day:day>/", audit_views.day, name="audit-day"),
    path("audit/days/<day:day>/export.zip", audit_views.export, name="audit-export"),
    path("audit/days/<day:day>/register", audit_views.register, name="audit-register"),
    path("audit/days/<day:day>/registers.zip", audit_views.registers_zip, name="audit-registers"),
    path("audit/public-key.pem", audit_views.site_public_key, name="audit-public-key"),
    path("audit/verify_export.py", audit_views.standalone_verifier, name="audit-verifier"),
    path("audit/exceptions/", audit_views.exceptions, name="audit-exceptions"),
    path("audit/events/", audit_event_list.events, name="audit-events"),
    path("audit/events/<pos:position>/", audit_views.event, name="audit-event"),
    path("runner/", runner_views.runner, name="runner"),
    path("runner/<id:approval>/confirm", runner_views.sign, {"decision": "confirm"}, name="runner-confirm"),
    path("runner/<id:approval>/refuse", runner_views.sign, {"decision": "refuse"}, name="runner-refuse"),
    path("compliance/", compliance_views.cases, name="compliance"),
    path("compliance/open", compliance_views.open_case, name="compliance-open"),
    path("compliance/cases/<code:case>/", compliance_views.case, name="compliance-case"),
    path("compliance/cases/<code:case>/<name:what>", compliance_views.step, name="compliance-step"),
    path("count-room/", count_room_views.count_room, name="count-room"),
    path("count-room/removals", count_room_views.remove, name="count-room-remove"),
    path("count-room/counts", count_room_views.count, name="count-room-count"),
    path("count-room/recounts", count_room_views.recount, name="count-room-recount"),
    path("count-room/master-game", count_room_views.sign, name="count-room-sign"),
    path("count-room/tips", count_room_views.tips, name="count-room-tips"),
    path("count-room/approvals/<id:approval>/<name:decision>", count_room_views.decide, name="count-room-decide"),
    path("reports/<name:slug>/", report_views.report, name="report"),
    path("reports/<name:slug>.pdf", report_views.report_pdf, name="report-pdf"),
]
