"""People endpoints: the access review (auditor, admin) and a leaver's deactivation (admin)."""

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from core.views import CommandView, TextField

from ..permissions import roles_allowed
from ..roles import Role
from ..selectors import access_review, access_review_csv
from ..services import staff_leave

ACCESS_REVIEWERS = frozenset({Role.AUDITOR, Role.ADMIN})


class AccessReview(APIView):
    """Who holds which role, since when, last login, leavers: JSON, or CSV when the URL ends in ``.csv``."""

    permission_classes = [roles_allowed(read=ACCESS_REVIEWERS)]

    @extend_schema(responses={(200, "application/json"): OpenApiTypes.OBJECT, (200, "text/csv"): OpenApiTypes.STR})
    def get(self, request, csv: bool = False):
        report = access_review()
        if not csv:
            return Response(report)
        response = HttpResponse(access_review_csv(report), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="access-review-{report["generated_at"][:10]}.csv"'
        return response


class UserLeave(CommandView):
    """A leaver: the account is deactivated now, the time recorded (event ``StaffLeft``)."""

    permission_classes = [roles_allowed(write={Role.ADMIN})]
    success_status = 200

    class Input(serializers.Serializer):
        reason = TextField(max_length=200, required=False, allow_blank=True, default="")

    input_serializer = Input

    def perform(self, data, *, username, actor, idempotency_key, **ctx):
        return staff_leave(username=username, reason=data["reason"], actor=actor, idempotency_key=idempotency_key)
