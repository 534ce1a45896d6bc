"""Game protection over the API (``games.protection``, ``games.services.investigations``):

- ``GET /api/protection/fluctuations/?gaming_day=``: each table's and patron's day in standard
  deviations of its bets' exact variance, and whether it is an alarm;
- ``GET /api/protection/investigations/?state=open|closed``, ``GET …/<id>/``;
- ``POST /api/protection/investigations/`` ``{"subject", "code", "reason", "gaming_day"?}``: open
  one (201; 409 when one is open for the same subject and day);
- ``POST …/<id>/notes`` ``{"note"}``: who looked (the caller) and what was found (201);
- ``POST …/<id>/close`` ``{"finding"}``: closed by the caller, a second person: 403 for the
  opener or anyone who noted it, 409 when closed already or nobody has noted it.

Read by the pit boss, the administrator and the auditor; worked (written) by the pit boss and
the administrator (403 for any other role). Amounts are integer cents; the theory and the
variance exact fractions as text; z a decimal to 4 places.
"""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from core.views import CommandView, TextField
from games.protection import day_fluctuations
from games.services import investigations as inv
from ledger.gaming_day import current_gaming_day
from staff.permissions import roles_allowed
from staff.roles import Role

WORKERS = frozenset({Role.PIT_BOSS, Role.ADMIN})
READERS = WORKERS | {Role.AUDITOR}
PERMISSION = roles_allowed(read=READERS, write=WORKERS)


def _row(row: dict) -> dict:
    out = {k: v for k, v in row.items() if k not in ("theoretical_win", "variance", "z")}
    out["theoretical_win_cents"] = str(row["theoretical_win"])
    out["variance_cents2"] = str(row["variance"])
    out["z"] = None if row["z"] is None else f"{row['z']:.4f}"
    return out


def _case(case: dict) -> dict:
    out = dict(case)
    out["gaming_day"] = case["gaming_day"].isoformat()
    for key in ("opened_at", "closed_at"):
        out[key] = case[key].isoformat() if case[key] else None
    out["notes"] = [n | {"at": n["at"].isoformat()} for n in case["notes"]]
    return out


class DayFilter(serializers.Serializer):
    gaming_day = serializers.DateField(required=False, help_text="YYYY-MM-DD; default: the current gaming day")


class Fluctuations(APIView):
    """The day's tables and patrons: ``{"gaming_day", "z_limit", "min_bets", "currency",
    "tables": [row], "patrons": [row]}``."""

    permission_classes = [PERMISSION]

    @extend_schema(parameters=[DayFilter], responses={200: OpenApiTypes.OBJECT})
    def get(self, request):
        query = DayFilter(data=request.query_params)
        query.is_valid(raise_exception=True)
        figures = day_fluctuations(query.validated_data.get("gaming_day") or current_gaming_day())
        return Response(
            {
                "gaming_day": figures["gaming_day"].isoformat(),
                "z_limit": f"{float(figures['z_limit']):g}",
                "min_bets": figures["min_bets"],
                "currency": settings.CASINO_CURRENCY,
                "tables": [_row(r) for r in figures["tables"]],
                "patrons": [_row(r) for r in figures["patrons"]],
            }
        )


class StateFilter(serializers.Serializer):
    state = serializers.ChoiceField(choices=["open", "closed"], required=False)


class Investigations(CommandView):
    """List (GET) or open (POST) investigations."""

    permission_classes = [PERMISSION]

    class Input(serializers.Serializer):
        subject = serializers.ChoiceField(choices=list(inv.SUBJECTS))
        code = serializers.RegexField(r"^[\w.@+:-]{1,40}$", help_text="the table's or the patron's code")
        reason = TextField(max_length=inv.MAX_TEXT, trim_whitespace=True)
        gaming_day = serializers.DateField(required=False, help_text="default: the current gaming day")

    input_serializer = Input

    @extend_schema(
        operation_id="protection_investigations_list", parameters=[StateFilter], responses={200: OpenApiTypes.OBJECT}
    )
    def get(self, request):
        query = StateFilter(data=request.query_params)
        query.is_valid(raise_exception=True)
        return Response({"investigations": [_case(c) for c in inv.investigations(**query.validated_data)]})

    def perform(self, data: dict, *, actor: str, idempotency_key: str | None) -> dict:
        return inv.open_investigation(
            subject=data["subject"],
            code=data["code"],
            gaming_day=data.get("gaming_day") or current_gaming_day(),
            actor=actor,
            reason=data["reason"],
            idempotency_key=idempotency_key,
        )


class Investigation(APIView):
    """One investigation, its notes and its close."""

    permission_classes = [PERMISSION]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request, investigation: str):
        return Response(_case(inv.investigation(investigation)))


class InvestigationNote(CommandView):
    permission_classes = [PERMISSION]

    class Input(serializers.Serializer):
        note = TextField(max_length=inv.MAX_TEXT, trim_whitespace=True)

    input_serializer = Input

    def perform(self, data: dict, *, actor: str, idempotency_key: str | None, investigation: str) -> dict:
        return inv.note_investigation(
            key=investigation, actor=actor, note=data["note"], idempotency_key=idempotency_key
        )


class InvestigationClose(CommandView):
    permission_classes = [PERMISSION]
    success_status = status.HTTP_200_OK

    class Input(serializers.Serializer):
        finding = TextField(max_length=inv.MAX_TEXT, trim_whitespace=True)

    input_serializer = Input

    def perform(self, data: dict, *, actor: str, idempotency_key: str | None, investigation: str) -> dict:
        return inv.close_investigation(
            key=investigation, actor=actor, finding=data["finding"], idempotency_key=idempotency_key
        )
