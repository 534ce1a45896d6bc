"""A change to someone's account, asked by an admin and signed by another from his own session.

- ``POST /api/staff/users/<name>/password-reset`` ``{approver?}``
- ``POST /api/staff/users/<name>/roles`` ``{roles, approver?}``
- ``POST /api/staff/users/<name>/reactivate`` ``{approver?}``
- ``POST /api/staff/users/<name>/leave`` ``{reason?, approver?}`` (a leaver's deactivation)

Each answers 202 ``{"approval": {...}}``: another admin (``approver`` if named, else any admin
other than the maker and the account's owner) confirms with ``POST /api/approvals/<id>/confirm``;
the act then runs (200). A reset's confirmation alone carries ``temporary_password``, for the
confirming admin to hand to the account's owner, who must change it at his next login.
"""

from rest_framework import serializers

from core.ids import UsernameField
from core.views import TextField
from staff.permissions import roles_allowed
from staff.roles import ALL_ROLES, Role

from .makers import ActView

ADMIN = {Role.ADMIN}


class AccountChange(ActView):
    permission_classes = [roles_allowed(write=ADMIN)]

    class Input(serializers.Serializer):
        approver = UsernameField(required=False, help_text="the admin who is to sign (any other admin if omitted)")

    input_serializer = Input

    def payload(self, data, *, username):
        return data | {"username": username}


class PasswordReset(AccountChange):
    """Reset a person's password to a temporary one (given to the confirming admin only)."""

    act = "staff_password_reset"


class Reactivate(AccountChange):
    """Make a leaver's account active again."""

    act = "staff_reactivate"


class RolesSet(AccountChange):
    """Make the person hold exactly ``roles``. Event ``StaffRolesChanged``."""

    act = "staff_roles_set"

    class Input(AccountChange.Input):
        roles = serializers.ListField(child=serializers.ChoiceField(choices=sorted(ALL_ROLES)), max_length=16)

    input_serializer = Input


class Leave(AccountChange):
    """A leaver: the account is deactivated once another admin signs, the time recorded (event
    ``StaffLeft``)."""

    act = "staff_leave"

    class Input(AccountChange.Input):
        reason = TextField(max_length=200, required=False, allow_blank=True, default="")

    input_serializer = Input
