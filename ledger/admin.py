"""Read-only admin: the admin bypasses the services, so it may look but never write."""

from django.contrib import admin

from .models import AccountBalance, Event, Posting


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class PostingInline(admin.TabularInline):
    model = Posting
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    list_display = ["position", "stream", "version", "type", "gaming_day", "actor", "occurred_at"]
    list_filter = ["type", "gaming_day"]
    search_fields = ["stream", "correlation_id"]
    inlines = [PostingInline]


@admin.register(AccountBalance)
class AccountBalanceAdmin(ReadOnlyAdmin):
    list_display = ["account", "currency", "balance_cents", "last_position"]
    search_fields = ["account"]
