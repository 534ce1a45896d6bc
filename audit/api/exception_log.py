"""``GET /api/audit/exceptions/`` (JSON) and ``/api/audit/exceptions.csv``: the exception log of a
gaming day (25 CFR 543.16(c)(3)(vii); ``audit.exceptions``), filtered by kind, table and person.

Read by the auditor, the administrator, the cage supervisor (the casino's AML compliance
desk: AML flags are listed here) and the pit boss. A whole gaming day is one report, as the
other daily reports (not paginated). A bad filter is a 400 naming it.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from cashier.spreadsheet import report_csv
from staff.permissions import roles_allowed
from staff.roles import Role

from ..exceptions import KINDS, default_day, exception_log

EXCEPTION_READERS = frozenset({Role.AUDITOR, Role.ADMIN, Role.CAGE_SUPERVISOR, Role.PIT_BOSS})


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


def _csv_row(row: dict) -> dict:
    """Cells for the spreadsheet: before/after as compact JSON text (never a Python repr)."""
    out = _json_row(row)
    for key in ("before", "after"):
        out[key] = "" if row[key] is None else json.dumps(row[key], sort_keys=True, separators=(",", ":"))
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
    a ``currency`` column."""

    permission_classes = [roles_allowed(read=EXCEPTION_READERS)]

    def get(self, request, csv: bool = False):
        filters = ExceptionFilters(data=request.query_params)
        filters.is_valid(raise_exception=True)
        chosen = dict(filters.validated_data)
        day = chosen.pop("gaming_day", None) or default_day()
        log = exception_log(day, **chosen)
        if csv:
            body = report_csv({"columns": log["columns"], "rows": [_csv_row(r) for r in log["rows"]]})
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
