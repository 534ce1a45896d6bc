"""People endpoints: the access review (auditor, admin). A leaver's deactivation, signed by two admins,
is an approval (``approvals/api/accounts.py``)."""

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from ..permissions import roles_allowed
from ..roles import Role
from ..selectors import access_review, access_review_csv

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
