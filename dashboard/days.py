"""The gaming day a page is asked for: ``?gaming_day=YYYY-MM-DD``, today's by default."""

from __future__ import annotations

from datetime import date

from django.http import Http404

from ledger.gaming_day import current_gaming_day


def asked_gaming_day(request) -> date:
    """The gaming day asked (``?gaming_day=YYYY-MM-DD``; today's by default). 404 on a date that
    is not one, or one after today's (nothing is recorded on it yet)."""
    today = current_gaming_day()
    raw = (request.GET.get("gaming_day") or "").strip()
    try:
        day = date.fromisoformat(raw) if raw else today
    except ValueError:
        raise Http404("a gaming day is a date YYYY-MM-DD") from None
    if day > today:
        raise Http404(f"gaming day {day.isoformat()} has not begun")
    return day
