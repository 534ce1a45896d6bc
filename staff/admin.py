"""Admin for staff: assignments and device tokens are read-only here (they change through
``staff.services``, which records the events); a user's role groups changed in the user form
are recorded as a ``StaffRolesChanged`` event, and an account created, renamed, deactivated or
made staff as ``StaffUserChanged``, each with before and after.

Roles and permissions change here under the API's rule (``staff.services.check_role_change``):
only a user holding the admin role, and never on his own account: a superuser cannot give
himself the cashier role and sell chips (issue 21). The role groups themselves (their names
are the roles) cannot be renamed, re-permissioned or deleted here.
"""

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.forms import UserChangeForm
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied, ValidationError

from ledger.admin import ReadOnlyAdmin

from .models import DealerAssignment, DeviceToken
from .roles import ALL_ROLES, IncompatibleRoles, Role, RoleRequired, check_compatible, has_role
from .services import check_role_change, record_roles_change, record_user_change, user_snapshot

# The user form's fields that give access: roles (groups), model permissions, the admin site.
ACCESS_FIELDS = ("groups", "user_permissions", "is_superuser", "is_staff")


@admin.register(DealerAssignment)
class DealerAssignmentAdmin(ReadOnlyAdmin):
    list_display = ["dealer", "table_code", "started_at", "assigned_by", "ended_at", "ended_by"]
    list_filter = ["table_code"]


@admin.register(DeviceToken)
class DeviceTokenAdmin(ReadOnlyAdmin):
    list_display = ["name", "kind", "table_code", "prefix", "created_at", "revoked_at"]
    exclude = ["digest"]


User = get_user_model()
if admin.site.is_registered(User):
    admin.site.unregister(User)
if admin.site.is_registered(Group):
    admin.site.unregister(Group)


def _may_change_access(request, obj) -> bool:
    if not has_role(request.user, Role.ADMIN):
        return False
    return obj is None or obj.pk != request.user.pk


class StaffUserChangeForm(UserChangeForm):
    """Django's user form, refusing roles one account may not hold together (the rule of
    ``staff.roles.check_compatible``, which ``record_roles_change`` enforces again)."""

    def clean_groups(self):
        groups = self.cleaned_data.get("groups")
        if groups is not None:
            try:
                check_compatible(g.name for g in groups)
            except IncompatibleRoles as exc:
                raise ValidationError(exc.message, code=exc.code) from None
        return groups


@admin.register(User)
class StaffUserAdmin(UserAdmin):
    form = StaffUserChangeForm

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        if not _may_change_access(request, obj):
            fields += [name for name in ACCESS_FIELDS if name not in fields]
        return fields

    def save_model(self, request, obj, form, change):
        before = user_snapshot(type(obj).objects.get(pk=obj.pk)) if change else None
        super().save_model(request, obj, form, change)
        record_user_change(before=before, user=obj, actor=request.user.get_username())

    def save_related(self, request, form, formsets, change):
        user = form.instance
        before = set(user.groups.filter(name__in=ALL_ROLES).values_list("name", flat=True)) if change else set()
        wanted = form.cleaned_data.get("groups")
        if wanted is not None and {g.name for g in wanted if g.name in ALL_ROLES} != before:
            try:  # the form shows these fields read-only already; a forged post stops here
                check_role_change(actor=request.user, username=user.get_username())
            except RoleRequired as exc:
                raise PermissionDenied(exc.message) from None
        super().save_related(request, form, formsets, change)
        after = set(user.groups.filter(name__in=ALL_ROLES).values_list("name", flat=True))
        if before != after:
            record_roles_change(user=user, after=after, before=before, actor=request.user.get_username())


@admin.register(Group)
class RoleGroupAdmin(GroupAdmin):
    """Groups: a role's group (its name is the role) is read-only; other groups as Django's."""

    def has_change_permission(self, request, obj=None):
        if obj is not None and obj.name in ALL_ROLES:
            return False
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        if obj is not None and obj.name in ALL_ROLES:
            return False
        return super().has_delete_permission(request, obj)
