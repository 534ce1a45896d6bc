"""Admin for staff: read-only for everything that lets one person act in another's name.

An admin who could set a cashier's password here could log in as that cashier (and delete
the ``django_admin_log`` row saying so). So on a user's page the password (no change form),
the roles (groups), model permissions, the active, staff and superuser flags are read-only;
they change through ``staff.accounts``, each a ledger event signed by a second admin from his
own session (``POST /api/staff/users/<name>/password-reset``, ``/roles``, ``/reactivate``, or
``manage.py account_change``; the other admin confirms with ``POST /api/approvals/<id>/confirm``),
and the account's owner then chooses a new password at his next login. A leaver is
deactivated by ``POST /api/staff/users/<name>/leave``.

Here an admin may still create an account (its name and first password: ``StaffUserChanged``,
and its owner must choose his own password at his first login: the creator knew the first
one) and edit its owner's first and last name and e-mail, through ``staff_profile_change``
(event ``StaffProfileChanged``, so ``ledger verify`` knows them); the username (the ledger
names people by it) is read-only once created. Assignments and device tokens are read-only too;
groups (the roles) cannot be added, renamed, re-permissioned or deleted.
"""

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied

from ledger.admin import ReadOnlyAdmin

from .accounts import mark_password_change_due
from .models import DealerAssignment, DeviceToken, PasswordChangeDue
from .roles import ALL_ROLES, RoleRequired
from .services import PROFILE_FIELDS, staff_account_recorded, staff_profile_change

# The user form's fields that give access or let someone log in as the account's owner.
ACCESS_FIELDS = ("password", "groups", "user_permissions", "is_active", "is_staff", "is_superuser")
SERVICES = (
    "through the staff services, signed by a second admin from his own session: "
    "POST /api/staff/users/<name>/password-reset, /roles or /reactivate (or manage.py account_change), "
    "then POST /api/approvals/<id>/confirm by the other admin"
)


@admin.register(DealerAssignment)
class DealerAssignmentAdmin(ReadOnlyAdmin):
    list_display = ["dealer", "table_code", "started_at", "assigned_by", "ended_at", "ended_by"]
    list_filter = ["table_code"]


@admin.register(DeviceToken)
class DeviceTokenAdmin(ReadOnlyAdmin):
    list_display = ["name", "kind", "table_code", "prefix", "created_at", "revoked_at"]
    exclude = ["digest"]


@admin.register(PasswordChangeDue)
class PasswordChangeDueAdmin(ReadOnlyAdmin):
    list_display = ["user", "reason", "set_by", "since"]


User = get_user_model()
if admin.site.is_registered(User):
    admin.site.unregister(User)
if admin.site.is_registered(Group):
    admin.site.unregister(Group)


@admin.register(User)
class StaffUserAdmin(UserAdmin):
    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        if obj is not None:
            # The username too: the ledger names people by it; a rename could hand one's name on.
            extra = ("username", *ACCESS_FIELDS, "last_login", "date_joined", "password_state", "how_to_change")
            fields += [name for name in extra if name not in fields]
        return fields

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None:
            return fieldsets
        # No password field at all (neither its hash nor the link to Django's change form).
        shown = [
            (name, {**options, "fields": [f for f in options["fields"] if f != "password"]})
            for name, options in fieldsets
        ]
        return [*shown, ("Password, roles, active", {"fields": ["password_state", "how_to_change"]})]

    @admin.display(description="Password")
    def password_state(self, obj) -> str:
        if not obj.has_usable_password():
            return "none (cannot log in with a password)"
        if PasswordChangeDue.objects.filter(user=obj).exists():
            return "set by someone else: its owner must choose a new one at his next login"
        return "set, no change pending"

    @admin.display(description="How to change them")
    def how_to_change(self, obj) -> str:
        return f"Read-only here: the password, the roles and the active flag change {SERVICES}."

    def user_change_password(self, request, id, form_url=""):
        raise PermissionDenied(f"a password is not set in the admin: it changes {SERVICES}")

    def has_delete_permission(self, request, obj=None):
        return False  # a leaver is deactivated (POST /api/staff/users/<name>/leave), his history kept

    def save_model(self, request, obj, form, change):
        actor = request.user.get_username()
        if change:
            # Only the names and the e-mail are editable here: they change through the service,
            # which records the change (never Django's plain save, which left no trace).
            fields = {name: form.cleaned_data[name] for name in PROFILE_FIELDS if name in form.cleaned_data}
            try:
                staff_profile_change(username=obj.get_username(), actor=actor, **fields)
            except RoleRequired as refusal:
                raise PermissionDenied(refusal.message) from None
            return
        super().save_model(request, obj, form, change)
        # Its creator knows the first password: the owner chooses his own.
        mark_password_change_due(obj, reason="account created in the admin", set_by=actor)
        staff_account_recorded(user=obj, actor=actor)

    def save_related(self, request, form, formsets, change):
        user = form.instance
        before = set(user.groups.filter(name__in=ALL_ROLES).values_list("name", flat=True))
        super().save_related(request, form, formsets, change)
        after = set(user.groups.filter(name__in=ALL_ROLES).values_list("name", flat=True))
        if before != after:  # the fields are read-only: a forged post never gets here; be sure
            raise PermissionDenied(f"roles are not changed in the admin: they change {SERVICES}")


@admin.register(Group)
class RoleGroupAdmin(GroupAdmin):
    """Groups are the roles (a group's name is the role; the migrations make them): read-only.
    A group added here would record no ledger event and need no second admin, and its
    permissions would be the admin's own to hand out."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
