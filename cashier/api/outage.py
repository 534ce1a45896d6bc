"""Outage mode endpoints (manual fallback; ``cashier.services.outage``).

- ``GET /api/outages/``: every outage with its forms; ``POST``: declare one (201)
- ``GET /api/outages/<id>``; ``POST /api/outages/<id>/end`` (an outage declared while it lasted)
- ``POST /api/outages/<id>/forms/<form>/complete`` (``lines``: the lines written on it, each
  entered and approved)
- ``GET /api/outages/forms.pdf`` (blank forms printed ahead: every table and the cage) and
  ``GET /api/outages/<id>/forms.pdf`` (the outage's forms with their serials)

A coup written on a form is entered through ``POST /api/outages/<id>/forms/<form>/coups``
(``approvals``: it waits for a second person's signature from his own login).
"""

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from core.views import CommandView, TextField
from ledger import outage_forms
from ledger.errors import NotFound
from staff.permissions import roles_allowed
from staff.roles import Role

from ..outage_forms_pdf import blank_forms_pdf, outage_forms_pdf
from ..services.outage import SCOPES, outage_declare, outage_end, outage_list, outage_summary, paper_form_complete
from .accounting import ACCOUNTING_READERS

DECLARERS = {Role.PIT_BOSS, Role.CAGE_SUPERVISOR, Role.ADMIN}
ENTERERS = {Role.PIT_BOSS, Role.CAGE_SUPERVISOR}
PDF = "application/pdf"


class Outages(CommandView):
    """The outages (GET) and the declaration of one (POST): ``started_at``, ``ended_at`` (left
    out while it lasts), ``scope`` (site, tables, cage), ``tables`` (scope ``tables``), ``reason``."""

    permission_classes = [roles_allowed(read=ACCOUNTING_READERS, write=DECLARERS)]

    class Input(serializers.Serializer):
        started_at = serializers.DateTimeField()
        ended_at = serializers.DateTimeField(required=False, allow_null=True)
        scope = serializers.ChoiceField(choices=SCOPES, default="site")
        tables = serializers.ListField(child=TextField(max_length=20), required=False)
        reason = TextField(max_length=500)

    input_serializer = Input

    @extend_schema(operation_id="outages_list", responses={200: OpenApiTypes.OBJECT})
    def get(self, request):
        return Response({"outages": outage_list()})

    def perform(self, data, **ctx):
        return outage_declare(**data, **ctx)


class OutageDetail(APIView):
    permission_classes = [roles_allowed(read=ACCOUNTING_READERS)]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request, outage: str):
        return Response(outage_summary(outage))


class OutageEnd(CommandView):
    """End an outage declared while it lasted (``ended_at``)."""

    permission_classes = [roles_allowed(write=DECLARERS)]
    success_status = 200

    class Input(serializers.Serializer):
        ended_at = serializers.DateTimeField()

    input_serializer = Input

    def perform(self, data, **ctx):
        return outage_end(**data, **ctx)


class PaperFormComplete(CommandView):
    """Mark a form entered: ``lines`` written on it, each entered and approved (409 otherwise)."""

    permission_classes = [roles_allowed(write=ENTERERS)]
    success_status = 200

    class Input(serializers.Serializer):
        lines = serializers.IntegerField(min_value=0, max_value=10_000)

    input_serializer = Input

    def perform(self, data, **ctx):
        return paper_form_complete(**data, **ctx)


def _pdf_response(body: bytes, name: str) -> HttpResponse:
    response = HttpResponse(body, content_type=PDF)
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


class BlankForms(APIView):
    """Blank outage forms to print ahead: one page for every table, one for the cage."""

    permission_classes = [roles_allowed(read=ACCOUNTING_READERS)]

    @extend_schema(operation_id="outages_blank_forms_pdf", responses={(200, PDF): OpenApiTypes.BINARY})
    def get(self, request):
        return _pdf_response(blank_forms_pdf(), "outage-forms-blank.pdf")


class OutageForms(APIView):
    """The forms of a declared outage, each with its serial."""

    permission_classes = [roles_allowed(read=ACCOUNTING_READERS)]

    @extend_schema(operation_id="outages_forms_pdf", responses={(200, PDF): OpenApiTypes.BINARY})
    def get(self, request, outage: str):
        found = outage_forms.outage(outage)
        if found is None:
            raise NotFound(f"no outage {outage!r}", field="outage")
        return _pdf_response(outage_forms_pdf(found), f"outage-{found.id}-forms.pdf")
