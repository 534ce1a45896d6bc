"""The signer's endpoints: the approvals, and confirming or rejecting one from one's own session.

- ``GET /api/approvals/`` (``?state=pending|confirmed|rejected|withdrawn|expired``), ``GET /api/approvals/<id>``
- ``POST /api/approvals/<id>/confirm``: the signer's own signature; the last one runs the act
  and answers as the act does (201 or 200, its result and ``approval``); one of several: 202.
  A fill's acceptance takes the dealer's own count (``{"count": {"<cents>": pieces}}``), the
  slip's piece for piece (400 on ``count`` otherwise, nothing written)
- ``POST /api/approvals/<id>/reject`` (``{"reason"}``, optional): the maker withdraws (state
  ``withdrawn``), a signer refuses (``rejected``)

403: the maker confirming his own request, a user the approval does not wait for, or one
without the role; 409: already confirmed, rejected or expired; 404: no such approval.
"""

from django.db.models import Q
from django.http import Http404
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse
from rest_framework import generics, serializers, status
from rest_framework.response import Response

from cashier.api.accounting import Count
from core.ids import uuid_of
from core.views import CommandSchema, CommandView, TextField
from staff.permissions import roles_allowed
from staff.roles import STAFF_ROLES

from ..acts import ACTS
from ..models import Approval
from ..selectors import readable_by
from ..services import approval_confirm, approval_reject, summary


class ApprovalSerializer(serializers.Serializer):
    def to_representation(self, instance):
        return summary(instance)


class ApprovalList(generics.ListAPIView):
    """The approvals, newest first (``?state=pending`` for those still waiting; one past its
    time is listed as ``expired``); a dealer's: his table's and those he takes part in
    (``approvals.selectors.readable_by``)."""

    permission_classes = [roles_allowed(read=STAFF_ROLES)]
    serializer_class = ApprovalSerializer

    def get_queryset(self):
        approvals = Approval.objects.all()
        state = self.request.query_params.get("state")
        lapsed = Q(state=Approval.State.PENDING, expires_at__lte=timezone.now())
        if state == Approval.State.PENDING:
            approvals = approvals.filter(state=state).exclude(lapsed)
        elif state == Approval.State.EXPIRED:
            approvals = approvals.filter(Q(state=state) | lapsed)
        elif state:
            approvals = approvals.filter(state=state)
        return readable_by(self.request.user, approvals)


class ApprovalDetail(generics.RetrieveAPIView):
    permission_classes = [roles_allowed(read=STAFF_ROLES)]
    serializer_class = ApprovalSerializer

    def get_object(self):
        try:
            key = uuid_of(self.kwargs["approval"])
        except ValueError:
            raise Http404 from None
        found = readable_by(self.request.user, Approval.objects.filter(id=key)).first()
        if found is None:  # none, or not one this person reads (a dealer's other tables)
            raise Http404
        return found


class ConfirmSchema(CommandSchema):
    def get_response_serializers(self):
        return {
            200: OpenApiResponse(OpenApiTypes.OBJECT, description="the act ran: its result and `approval`"),
            201: OpenApiResponse(OpenApiTypes.OBJECT, description="the act ran and created: its result and `approval`"),
            202: OpenApiResponse(OpenApiTypes.OBJECT, description="signed; another signature is missing"),
        }


class ApprovalConfirm(CommandView):
    """Sign a pending approval as oneself; the last signature runs the act."""

    permission_classes = [roles_allowed(write=STAFF_ROLES)]
    schema = ConfirmSchema()

    class Input(serializers.Serializer):
        count = Count(required=False, help_text='a fill accepted at the table: the dealer\'s count {"<cents>": pieces}')

    input_serializer = Input

    def post(self, request, **kwargs):
        serializer = self.input_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        result = approval_confirm(
            approval=kwargs["approval"],
            actor=request.user.get_username(),
            count=serializer.validated_data.get("count"),
            idempotency_key=request.headers.get("Idempotency-Key") or None,
        )
        approval = result["approval"]
        done = approval["state"] == Approval.State.CONFIRMED
        return Response(result, status=ACTS[approval["kind"]].status if done else status.HTTP_202_ACCEPTED)


class ApprovalReject(CommandView):
    """Reject a pending approval (its maker, or a user it waits for): the act never runs."""

    permission_classes = [roles_allowed(write=STAFF_ROLES)]
    success_status = 200

    class Input(serializers.Serializer):
        reason = TextField(max_length=500, required=False, allow_blank=True, default="")

    input_serializer = Input

    def perform(self, data, *, approval, **ctx):
        return approval_reject(approval=approval, **data, **ctx)
