"""Staff endpoints: dealer assignments, device tokens and role changes (each a ledger event)."""

from rest_framework import generics, serializers

from casino.views import CommandView

from .models import DealerAssignment, DeviceToken
from .permissions import roles_allowed
from .roles import ALL_ROLES, Role
from .services import dealer_assign, dealer_release, device_token_issue, device_token_revoke, staff_roles_set

ASSIGNMENT_READERS = frozenset({Role.PIT_BOSS, Role.ADMIN, Role.AUDITOR})


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
        dealer = serializers.CharField(max_length=150)
        table = serializers.CharField(max_length=20)

    input_serializer = Input

    def perform(self, data, **ctx):
        return dealer_assign(**data, **ctx)


class AssignmentRelease(CommandView):
    """End a dealer's assignment. Event ``DealerReleased``."""

    permission_classes = [roles_allowed(write={Role.PIT_BOSS, Role.ADMIN})]
    success_status = 200

    class Input(serializers.Serializer):
        dealer = serializers.CharField(max_length=150)

    input_serializer = Input

    def perform(self, data, **ctx):
        return dealer_release(**data, **ctx)


class DeviceTokenSerializer(serializers.ModelSerializer):
    class Meta:
        model = DeviceToken
        fields = ["name", "kind", "table_code", "prefix", "created_at", "created_by", "revoked_at"]


class DeviceList(generics.ListAPIView):
    """Devices and the table each is bound to (never the token: only its first characters)."""

    permission_classes = [roles_allowed(read=ASSIGNMENT_READERS)]
    serializer_class = DeviceTokenSerializer
    queryset = DeviceToken.objects.order_by("name")


class DeviceIssue(CommandView):
    """Issue a device token bound to one table; the token is in this answer only."""

    permission_classes = [roles_allowed(write={Role.PIT_BOSS, Role.ADMIN})]

    class Input(serializers.Serializer):
        name = serializers.CharField(max_length=60)
        kind = serializers.ChoiceField(choices=DeviceToken.Kind.choices)
        table = serializers.CharField(max_length=20)

    input_serializer = Input

    def perform(self, data, *, actor, idempotency_key, **ctx):
        return device_token_issue(**data, actor=actor)


class DeviceRevoke(CommandView):
    """Revoke a device's token."""

    permission_classes = [roles_allowed(write={Role.PIT_BOSS, Role.ADMIN})]
    success_status = 200

    class Input(serializers.Serializer):
        pass

    input_serializer = Input

    def perform(self, data, *, name, actor, idempotency_key, **ctx):
        return device_token_revoke(name=name, actor=actor)


class UserRoles(CommandView):
    """Set the roles a user holds (admin only, not his own). Event ``StaffRolesChanged``."""

    permission_classes = [roles_allowed(write={Role.ADMIN})]
    success_status = 200

    class Input(serializers.Serializer):
        roles = serializers.ListField(child=serializers.ChoiceField(choices=sorted(ALL_ROLES)), max_length=16)

    input_serializer = Input

    def perform(self, data, *, username, actor, idempotency_key, **ctx):
        return staff_roles_set(username=username, roles=data["roles"], actor=actor)
