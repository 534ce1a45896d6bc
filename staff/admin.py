"""Admin for staff: assignments and device tokens are read-only here (they change through
``staff.services``, which records the events); a user's role groups changed in the user form
are recorded as a ``StaffRolesChanged`` event, and an account created, renamed, deactivated or
made staff as ``StaffUserChanged``, each with before and after."""

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin

from ledger.admin import ReadOnlyAdmin

from .models import DealerAssignment, DeviceToken
from .roles import ALL_ROLES
from .services import record_roles_change, record_user_change, user_snapshot


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


@admin.register(User)
class StaffUserAdmin(UserAdmin):
    def save_model(self, request, obj, form, change):
        before = user_snapshot(type(obj).objects.get(pk=obj.pk)) if change else None
        super().save_model(request, obj, form, change)
        record_user_change(before=before, user=obj, actor=request.user.get_username())

    def save_related(self, request, form, formsets, change):
        user = form.instance
        before = set(user.groups.filter(name__in=ALL_ROLES).values_list("name", flat=True)) if change else set()
        super().save_related(request, form, formsets, change)
        after = set(user.groups.filter(name__in=ALL_ROLES).values_list("name", flat=True))
        if before != after:
            record_roles_change(user=user, after=after, before=before, actor=request.user.get_username())
