"""Role change endpoint (admin, never his own roles)."""

from rest_framework import serializers

from core.views import CommandView

from ..permissions import roles_allowed
from ..roles import ALL_ROLES, Role
from ..services import staff_roles_set


class UserRoles(CommandView):
    """Set the roles a user holds (admin only, not his own). Event ``StaffRolesChanged``."""

    permission_classes = [roles_allowed(write={Role.ADMIN})]
    success_status = 200

    class Input(serializers.Serializer):
        roles = serializers.ListField(child=serializers.ChoiceField(choices=sorted(ALL_ROLES)), max_length=16)

    input_serializer = Input

    def perform(self, data, *, username, actor, idempotency_key, **ctx):
        return staff_roles_set(username=username, roles=data["roles"], actor=actor)
