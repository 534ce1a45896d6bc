"""The auditor's event list (``/workstations/audit/events/``): the ledger events behind a figure
of the workstation's pages and reports, filtered (``audit_selectors.event_list``), a page at a
time, each linked to its trail. Read-only."""

from __future__ import annotations

from datetime import date
from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.shortcuts import render
from django.utils.text import capfirst
from django.views.decorators.http import require_safe

from dashboard import play
from ledger.models import Event

from . import audit_selectors
from .access import AUDIT_ROLES, roles_required

audit_only = roles_required(*AUDIT_ROLES, place="audit")


def _with_page(query: str, number: int) -> str:
    return f"{query}&page={number}" if query else f"page={number}"


EVENTS_PER_PAGE = 100
EVENT_FILTER_LABELS = {
    "gaming_day": "gaming day",
    "since": "gaming days from",
    "until": "gaming days to",
    "from": "from ledger position",
    "to": "to ledger position",
    "table": "table",
    "type": "event type",
    "account": "account",
    "stream": "stream",
    "patron": "patron",
}
# Filters the form shows; the others (links from a report or a day's page) ride along hidden.
FORM_FILTERS = ("gaming_day", "patron", "table", "type")


def _event_filters(query) -> tuple[dict[str, str], str]:
    """The event list's filters from the query string, checked: ``(filters, error)``; a bad one
    is named in ``error`` (and the list is not shown)."""
    filters = {}
    for name in audit_selectors.EVENT_FILTERS:
        value = (query.get(name) or "").strip()[:200]
        if not value:
            continue
        if name in ("gaming_day", "since", "until"):
            try:
                date.fromisoformat(value)
            except ValueError:
                return {}, f"The {EVENT_FILTER_LABELS[name]} “{value[:40]}” is not a date YYYY-MM-DD."
        if name in ("from", "to") and not (value.isascii() and value.isdigit() and len(value) < 19):
            return {}, f"The {EVENT_FILTER_LABELS[name]} “{value[:40]}” is not a whole number."
        filters[name] = value
    return filters, ""


def _filter_words(name: str, value: str) -> str:
    """A filter's value as people read it: event types in words, positions with separators."""
    if name == "type":
        return " or ".join(play.event_words(t) for t in value.split(","))
    if name in ("from", "to"):
        return f"{int(value):,}"
    if name == "patron":
        codes = audit_selectors.patron_codes(value)
        if not codes:
            return f"{value} (no such patron)"
        return ", ".join(audit_selectors.patron_names(codes).values())
    return value.replace(",", ", ")


@require_safe
@audit_only
def events(request):
    """The ledger's events behind a figure: filtered by gaming day (or days), positions,
    table, event type, account, stream or patron (``audit_selectors.event_list``),
    ``EVENTS_PER_PAGE`` a page, each linked to its trail; a form sets the gaming day, patron,
    table and type (a choice of the types present that day, in words). A filter that is not
    well formed is a 400 that names it."""
    filters, error = _event_filters(request.GET)
    rows = audit_selectors.event_list(filters) if filters and not error else Event.objects.none()
    page = Paginator(rows, EVENTS_PER_PAGE).get_page(request.GET.get("page"))
    query = urlencode(filters)
    return render(
        request,
        "workstations/audit_events.html",
        {
            "page": page,
            "rows": [audit_selectors.event_row(e) for e in page.object_list],
            "filters": [(EVENT_FILTER_LABELS[k], _filter_words(k, v)) for k, v in filters.items()],
            "pages": [
                {"number": n, "query": _with_page(query, n) if isinstance(n, int) else ""}
                for n in page.paginator.get_elided_page_range(page.number)
            ],
            "previous_query": _with_page(query, page.number - 1),
            "next_query": _with_page(query, page.number + 1),
            "error": error or ("" if filters else "Choose what to list: a gaming day, a patron, a table, a type…"),
            "form": _form(request.GET, filters),
        },
        status=400 if error else 200,
    )


def _form(query, filters: dict[str, str]) -> dict:
    """The filter form: the values asked (as typed, even a bad one), the days to choose from,
    the event types present on the chosen day (else in the ledger) in words, and the other
    filters of the list as hidden fields (kept when the form is sent again)."""
    asked = {name: (query.get(name) or "").strip()[:200] for name in FORM_FILTERS}
    day = filters.get("gaming_day")
    chosen = set(asked["type"].split(",")) if asked["type"] else set()
    types = sorted(set(audit_selectors.event_types(day)) | chosen, key=play.event_words)
    days = [d["day"].isoformat() for d in audit_selectors.day_states()]
    return {
        **asked,
        "days": days if not asked["gaming_day"] or asked["gaming_day"] in days else [asked["gaming_day"], *days],
        # A report's link may ask for several types at once: one choice of its own, kept.
        "types": [(t, capfirst(play.event_words(t)), t == asked["type"]) for t in types],
        "several_types": capfirst(_filter_words("type", asked["type"])) if len(chosen) > 1 else "",
        "hidden": [(name, value) for name, value in filters.items() if name not in FORM_FILTERS],
    }
