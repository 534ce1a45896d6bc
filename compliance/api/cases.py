"""``/api/compliance/cases/``: the suspicion cases, for the compliance role only (403 for any
other), thin shells over ``compliance.services`` and ``compliance.selectors``."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from core.views import CommandView, TextField
from staff.permissions import roles_allowed
from staff.roles import Role

from .. import selectors, services

COMPLIANCE_ONLY = roles_allowed(read={Role.COMPLIANCE}, write={Role.COMPLIANCE})


class CaseList(APIView):
    """Every suspicion case (``compliance.selectors.suspicion_case``'s shape, times UTC ISO):
    those waiting first, nearest deadline first; ``overdue`` cases are past their deadline."""

    permission_classes = [COMPLIANCE_ONLY]

    @extend_schema(operation_id="compliance_cases_list", responses={200: OpenApiTypes.OBJECT})
    def get(self, request):
        return Response({"cases": [selectors.case_json(c) for c in selectors.suspicion_cases()]})


class CaseDetail(APIView):
    """One suspicion case; 404 when there is none."""

    permission_classes = [COMPLIANCE_ONLY]

    @extend_schema(operation_id="compliance_case_retrieve", responses={200: OpenApiTypes.OBJECT})
    def get(self, request, case):
        return Response(selectors.case_json(selectors.suspicion_case(case)))


class CaseOpen(CommandView):
    """Open a case from an AML flag (``flag``: its ledger position) or by hand (``patron``: a
    code), with the ``reason``. The deadline follows the jurisdiction (SAR-C: 30 days)."""

    permission_classes = [COMPLIANCE_ONLY]

    class Input(serializers.Serializer):
        flag = serializers.IntegerField(required=False, min_value=1, max_value=2**62)
        patron = TextField(required=False, max_length=20)
        reason = TextField(max_length=services.MAX_TEXT)

    input_serializer = Input

    def perform(self, data, *, actor, idempotency_key=None):
        return services.suspicion_case_open(actor=actor, idempotency_key=idempotency_key, **data)


class CaseAttach(CommandView):
    """Attach the patron's cash transactions (ledger positions) to the case."""

    permission_classes = [COMPLIANCE_ONLY]

    class Input(serializers.Serializer):
        positions = serializers.ListField(
            child=serializers.IntegerField(min_value=1, max_value=2**62), min_length=1, max_length=services.MAX_ATTACH
        )

    input_serializer = Input

    def perform(self, data, *, case, actor, idempotency_key=None):
        return services.case_transactions_attach(case=case, actor=actor, idempotency_key=idempotency_key, **data)


class CaseFindings(CommandView):
    """Write findings on the case (before its decision)."""

    permission_classes = [COMPLIANCE_ONLY]

    class Input(serializers.Serializer):
        text = TextField(max_length=services.MAX_TEXT)

    input_serializer = Input

    def perform(self, data, *, case, actor, idempotency_key=None):
        return services.case_findings_write(case=case, actor=actor, idempotency_key=idempotency_key, **data)


class CaseDecision(CommandView):
    """Decide the case: ``file`` or ``no_file``, with the reason (findings first)."""

    permission_classes = [COMPLIANCE_ONLY]

    class Input(serializers.Serializer):
        decision = serializers.ChoiceField(choices=list(services.DECISIONS))
        reason = TextField(max_length=services.MAX_TEXT)

    input_serializer = Input

    def perform(self, data, *, case, actor, idempotency_key=None):
        return services.case_decide(case=case, actor=actor, idempotency_key=idempotency_key, **data)


class CaseFiling(CommandView):
    """Record the filed report (after a "file" decision): its kind, reference and when."""

    permission_classes = [COMPLIANCE_ONLY]

    class Input(serializers.Serializer):
        kind = serializers.ChoiceField(choices=list(services.FILING_KINDS))
        reference = TextField(max_length=100)
        filed_at = serializers.DateTimeField()

    input_serializer = Input

    def perform(self, data, *, case, actor, idempotency_key=None):
        return services.case_filing_record(case=case, actor=actor, idempotency_key=idempotency_key, **data)
