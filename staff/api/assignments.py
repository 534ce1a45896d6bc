"""Dealer assignment endpoints: the list, assign, release (pit boss)."""

from rest_framework import generics, serializers

from core.ids import CodeField, UsernameField
from core.views import CommandView

from ..models import DealerAssignment
from ..permissions import ASSIGNMENT_READERS, roles_allowed
from ..roles import Role
from ..services import dealer_assign, dealer_release


class DealerAssignmentSerializer(serializers.ModelSerializer):
    dealer = serializers.CharField(source="dealer.username")

    class Meta:
        model = DealerAssignment
        fields = ["dealer", "table_code", "started_at", "assigned_by", "ended_at", "ended_by"]


class AssignmentList(generics.ListAPIView):
    """Dealers' table assignments, open ones first (``ended_at`` null), newest first."""

    permission_classes = [roles_allowed(read=ASSIGNMENT_READERS)]
    serializer_class = DealerAssignmentSerializer
    queryset = DealerAssignment.objects.select_related("dealer").order_by("-ended_at", "-started_at")


class AssignmentCreate(CommandView):
    """Assign a dealer to a table (ends his assignment elsewhere). Event ``DealerAssigned``."""

    permission_classes = [roles_allowed(write={Role.PIT_BOSS, Role.ADMIN})]

    class Input(serializers.Serializer):
        dealer = UsernameField()
        table = CodeField()

    input_serializer = Input

    def perform(self, data, **ctx):
        return dealer_assign(**data, **ctx)


class AssignmentRelease(CommandView):
    """End a dealer's assignment. Event ``DealerReleased``."""

    permission_classes = [roles_allowed(write={Role.PIT_BOSS, Role.ADMIN})]
    success_status = 200

    class Input(serializers.Serializer):
        dealer = UsernameField()

    input_serializer = Input

    def perform(self, data, **ctx):
        return dealer_release(**data, **ctx)
