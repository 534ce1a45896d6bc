from django.contrib import admin

from ledger.admin import ReadOnlyAdmin

from .models import Cage, ColourStack, Patron, Slip


@admin.register(Patron)
class PatronAdmin(admin.ModelAdmin):
    """Identity data is edited here (it is not in the ledger); money never is."""

    list_display = ["code", "kind", "name", "created_at"]
    search_fields = ["code", "name", "document"]
    readonly_fields = ["code", "kind", "created_at"]

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Cage)
class CageAdmin(ReadOnlyAdmin):
    list_display = ["code", "state", "version"]


@admin.register(ColourStack)
class ColourStackAdmin(ReadOnlyAdmin):
    list_display = ["table", "colour", "patron", "unit_value_cents", "state"]


@admin.register(Slip)
class SlipAdmin(ReadOnlyAdmin):
    """Fill and credit slips: read-only (a mistake is voided or reversed by the services)."""

    list_display = ["kind", "serial", "table", "amount_cents", "state", "requested_by", "issued_by", "accepted_by"]
    list_filter = ["kind", "state"]
