"""``GET /api/audit/exceptions/`` (JSON) and ``/api/audit/exceptions.csv``: the exception log of a
gaming day (25 CFR 543.16(c)(3)(vii); ``audit.exceptions``), filtered by kind, table and person.

Read by the auditor, the administrator, the cage supervisor (the casino's AML compliance
desk: AML flags are listed here) and the pit boss. A whole gaming day is one report, as the
other daily reports (not paginated). A bad filter is a 400 naming it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from basis.money import format_cents
from cashier.spreadsheet import report_csv
from ledger.replica import reads_from_replica
from staff.permissions import roles_allowed
from staff.roles import Role

from ..exceptions import KINDS, default_day, exception_log

# The compliance officer reads it too: its AML flags are his to follow up (compliance app).
EXCEPTION_READERS = frozenset({Role.AUDITOR, Role.ADMIN, Role.CAGE_SUPERVISOR, Role.PIT_BOSS, Role.COMPLIANCE})


class ExceptionFilters(serializers.Serializer):
    gaming_day = serializers.DateField(required=False, help_text="YYYY-MM-DD; default: the current gaming day")
    kind = serializers.ChoiceField(choices=list(KINDS), required=False, help_text="default: every kind")
    table = serializers.RegexField(r"^[A-Za-z0-9_-]{1,20}$", required=False, help_text="a table code")
    person = serializers.RegexField(
        r"^[\w.@+:-]{1,150}$", required=False, help_text="a username or patron code: who acted, signed or is concerned"
    )


def _utc(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _json_row(row: dict) -> dict:
    out = {k: v for k, v in row.items() if k != "subject_person"}
    out["at"] = _utc(row["at"])
    out["gaming_day"] = row["gaming_day"].isoformat()
    out["currency"] = settings.CASINO_CURRENCY if row["amount_cents"] is not None else None
    return out


CSV_COLUMNS_AFTER = {"at": "local_time"}  # the local time follows the UTC one


def _csv_columns(columns: list[str]) -> list[str]:
    out = []
    for column in columns:
        out.append(column)
        if column in CSV_COLUMNS_AFTER:
            out.append(CSV_COLUMNS_AFTER[column])
    return out


def _local(moment: datetime) -> str:
    """``2026-12-02 04:47:54 CET``: the casino's local time (``CASINO_TIMEZONE``) with its zone."""
    local = moment.astimezone(ZoneInfo(settings.CASINO_TIMEZONE)).replace(microsecond=0)
    return f"{local:%Y-%m-%d %H:%M:%S} {local.tzname()}"


def _words(value: object, key: str = "") -> str:
    """A before/after value in words for a person: ``{"day_total_cents": 200000}`` →
    ``day total: 2,000.00 EUR``; nested dicts and lists the same way, in brackets."""
    if isinstance(value, dict):
        return "; ".join(f"{_key_words(k)}: {_words(v, k)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(f"({_words(v)})" if isinstance(v, dict) else _words(v, key) for v in value) or "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    if key.endswith("_cents") and isinstance(value, int):
        return format_cents(value)
    return str(value)


def _key_words(key: str) -> str:
    return key.removesuffix("_cents").replace("_", " ")


def _csv_row(row: dict) -> dict:
    """Cells for the spreadsheet: ``at`` in UTC to the second (``...Z``) and ``local_time`` in
    the casino's zone with the zone's name; before/after in words, amounts in currency units
    (the JSON endpoint keeps them as JSON, in cents). Never a Python repr."""
    out = _json_row(row)
    out["at"] = _utc(row["at"].replace(microsecond=0))
    out["local_time"] = _local(row["at"])
    for key in ("before", "after"):
        out[key] = "" if row[key] is None else _words(row[key])
    return out


@extend_schema(
    parameters=[ExceptionFilters],
    responses={(200, "application/json"): OpenApiTypes.OBJECT, (200, "text/csv"): OpenApiTypes.STR},
)
class ExceptionLog(APIView):
    """The day's exceptions, oldest first: ``{"title", "gaming_day", "generated_at" (UTC),
    "filters", "threshold_cents", "currency", "kinds", "count", "columns", "rows"}``; each row
    ``{"at" (UTC), "gaming_day", "kind", "label", "type", "table", "person", "approver",
    "subject", "what", "before", "after", "amount_cents", "currency", "event", "source"}``.
    CSV (URL ending ``.csv``): the header, then one line per row, amounts in currency units with
    a ``currency`` column; ``at`` in UTC to the second (``2026-12-02T03:47:54Z``) followed by
    ``local time`` in ``CASINO_TIMEZONE`` with its zone (``2026-12-02 04:47:54 CET``); before and
    after in words (``day total: 2,000.00 EUR``)."""

    permission_classes = [roles_allowed(read=EXCEPTION_READERS)]

    @reads_from_replica()
    def get(self, request, csv: bool = False):
        filters = ExceptionFilters(data=request.query_params)
        filters.is_valid(raise_exception=True)
        chosen = dict(filters.validated_data)
        day = chosen.pop("gaming_day", None) or default_day()
        log = exception_log(day, **chosen)
        if csv:
            columns = _csv_columns(log["columns"])
            body = report_csv({"columns": columns, "rows": [_csv_row(r) for r in log["rows"]]})
            response = HttpResponse(body, content_type="text/csv; charset=utf-8")
            response["Content-Disposition"] = f'attachment; filename="exceptions-{day.isoformat()}.csv"'
            return response
        return Response(
            {
                "title": "Exception log",
                "gaming_day": day.isoformat(),
                "generated_at": _utc(datetime.now(UTC).replace(microsecond=0)),
                "filters": chosen,
                "threshold_cents": log["threshold_cents"],
                "currency": settings.CASINO_CURRENCY,
                "kinds": {key: label for key, (label, _) in KINDS.items()},
                "count": len(log["rows"]),
                "columns": [*log["columns"], "currency"],
                "rows": [_json_row(r) for r in log["rows"]],
            }
        )
