"""Dealer assignment endpoints: the list, assign, release (pit boss)."""

from rest_framework import generics, serializers

from core.ids import CodeField, UsernameField
from core.views import CommandView

from ..identity import assignment_row_differences
from ..models import DealerAssignment
from ..permissions import ASSIGNMENT_READERS, roles_allowed
from ..roles import Role
from ..services import dealer_assign, dealer_release


class DealerAssignmentSerializer(serializers.ModelSerializer):
    dealer = serializers.CharField(source="dealer.username")
    ledger = serializers.SerializerMethodField(
        help_text='"" when the row is what its sealed events made; else "differs from the ledger: <fields>" '
        "(changed or planted with raw SQL: it grants nothing)"
    )

    class Meta:
        model = DealerAssignment
        fields = ["dealer", "table_code", "started_at", "assigned_by", "ended_at", "ended_by", "ledger"]

    def get_ledger(self, assignment) -> str:
        fields = self.context.get("differences", {}).get(assignment.pk)
        return f"differs from the ledger: {', '.join(fields)}" if fields else ""


class AssignmentList(generics.ListAPIView):
    """Dealers' table assignments, open ones first (``ended_at`` null), newest first; each
    row's ``ledger`` says whether it differs from the sealed events that should have made it
    (``staff.identity.assignment_row_differences``): a row planted or moved with raw SQL is
    shown marked, never as fact."""

    permission_classes = [roles_allowed(read=ASSIGNMENT_READERS)]
    serializer_class = DealerAssignmentSerializer
    queryset = DealerAssignment.objects.select_related("dealer").order_by("-ended_at", "-started_at")

    def get_serializer_context(self):
        context = super().get_serializer_context()
        if not getattr(self, "swagger_fake_view", False):  # the schema's generator reads no rows
            context["differences"] = assignment_row_differences()
        return context


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
