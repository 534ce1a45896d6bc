"""``POST /api/staff/password`` ``{old_password, new_password}``: a person chooses his own new
password (after a change by two admins, before any other call: ``staff.middleware``)."""

from collections.abc import Mapping

from rest_framework import serializers
from rest_framework.permissions import BasePermission

from core.views import CommandView, TextField

from ..accounts import staff_password_change
from ..models import DeviceToken


class PersonOnly(BasePermission):
    """Any logged-in person, whatever his roles (not a device: it has a token, no password)."""

    message = "a device has no password"

    def has_permission(self, request, view) -> bool:
        user = request.user
        return bool(user and user.is_authenticated) and not isinstance(request.auth, DeviceToken)


class PasswordChange(CommandView):
    """Change one's own password: 200 ``{"username", "must_change_password": false, "position"}``;
    400 naming ``old_password`` (not the current one) or ``new_password`` (too weak, or the same),
    or any other field the body holds (``username``: only one's own password changes here)."""

    permission_classes = [PersonOnly]
    success_status = 200

    class Input(serializers.Serializer):
        old_password = TextField(max_length=128, trim_whitespace=False)
        new_password = TextField(max_length=128, trim_whitespace=False)

        def to_internal_value(self, data):
            # Refused, not ignored: a body naming someone (``username``) must not leave its
            # sender believing he changed that person's password.
            if isinstance(data, Mapping):
                unknown = sorted(set(data) - set(self.fields))
                if unknown:
                    message = "unknown field: this changes your own password only (old_password, new_password)"
                    raise serializers.ValidationError({unknown[0]: [message]})
            return super().to_internal_value(data)

    input_serializer = Input

    def post(self, request, **kwargs):
        self.request_user = request.user
        return super().post(request, **kwargs)

    def perform(self, data, **ctx):
        return staff_password_change(user=self.request_user, **data)
