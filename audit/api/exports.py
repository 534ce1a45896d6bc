"""``GET /api/exports/gaming-days/<YYYY-MM-DD>.zip``: a gaming day's audit export, streamed as a zip.

Auditors and administrators may download it; the identity columns of ``aml.csv`` are filled
only for the roles entitled to identities (auditor, cage supervisor), and withheld otherwise.
"""

from datetime import date

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.views import APIView

from ledger.errors import InvalidInput
from ledger.export.writer import sealed_export_zip_stream
from staff.permissions import roles_allowed
from staff.roles import Role, has_role

IDENTITY_ROLES = (Role.AUDITOR, Role.CAGE_SUPERVISOR)


class GamingDayExport(APIView):
    """The export of one gaming day (events.jsonl, postings.csv, balances.csv, tables.csv, cage.csv,
    aml.csv, manifest.json) as a zip streamed while it is built; check it with ``verify_export``.
    Only a sealed day has one, as on the auditor's pages: 409 for a day still open and not
    sealed. 400 for a malformed day, 404 for a day without events."""

    permission_classes = [roles_allowed(read={Role.AUDITOR, Role.ADMIN})]

    @extend_schema(responses={(200, "application/zip"): OpenApiTypes.BINARY})
    def get(self, request, day: str):
        try:
            gaming_day = date.fromisoformat(day)
        except ValueError:
            raise InvalidInput("the gaming day is a date YYYY-MM-DD", field="day") from None
        chunks = sealed_export_zip_stream(gaming_day, include_identity=has_role(request.user, *IDENTITY_ROLES))
        response = StreamingHttpResponse(chunks, content_type="application/zip")
        response["Content-Disposition"] = f'attachment; filename="gaming-day-{gaming_day.isoformat()}.zip"'
        return response
