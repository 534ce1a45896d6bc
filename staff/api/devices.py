"""Device token endpoints: the list, issue (the token shown once), revoke."""

from rest_framework import generics, serializers

from core.ids import CodeField
from core.views import CommandView, TextField

from ..models import DeviceToken
from ..permissions import ASSIGNMENT_READERS, roles_allowed
from ..roles import Role
from ..services import device_token_issue, device_token_revoke


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
    """Issue a device token bound to one table (a pit boss, never the admin); the token is in
    this answer only."""

    permission_classes = [roles_allowed(write={Role.PIT_BOSS})]

    class Input(serializers.Serializer):
        name = TextField(max_length=60)
        kind = serializers.ChoiceField(choices=DeviceToken.Kind.choices)
        table = CodeField()

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
