"""Read-only admin: the admin bypasses the services, so it may look but never write."""

import json

from django.contrib import admin

from . import withheld
from .models import AccountBalance, Event, Posting
from .withheld import HASH_WITHHELD


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
    """The event page shows a face-down card of a coup in play without its value, and no hash
    from that card onwards until the coup is over (``ledger.withheld``): a superuser is a
    reader like any other."""

    list_display = ["position", "stream", "version", "type", "gaming_day", "actor", "occurred_at"]
    list_filter = ["type", "gaming_day"]
    search_fields = ["stream", "correlation_id"]
    inlines = [PostingInline]
    fields = [
        "position",
        "stream",
        "version",
        "type",
        "schema_version",
        "shown_data",
        "occurred_at",
        "recorded_at",
        "gaming_day",
        "actor",
        "correlation_id",
        "causation_id",
        "idempotency_key",
        "shown_prev_hash",
        "shown_hash",
    ]
    readonly_fields = fields

    @admin.display(description="data")
    def shown_data(self, event: Event) -> str:
        return json.dumps(withheld.shown_data(event), ensure_ascii=False, sort_keys=True, indent=1)

    @admin.display(description="prev hash")
    def shown_prev_hash(self, event: Event) -> str:
        shown = withheld.hash_shown(event.position, withheld.hashes_withheld_from())
        return event.prev_hash if shown else HASH_WITHHELD

    @admin.display(description="hash")
    def shown_hash(self, event: Event) -> str:
        shown = withheld.hash_shown(event.position, withheld.hashes_withheld_from())
        return event.hash if shown else HASH_WITHHELD


@admin.register(AccountBalance)
class AccountBalanceAdmin(ReadOnlyAdmin):
    list_display = ["account", "currency", "balance_cents", "last_position"]
    search_fields = ["account"]
