from django.contrib import admin

from .models import Patron


@admin.register(Patron)
class PatronAdmin(admin.ModelAdmin):
    """Identity data is edited here (it is not in the ledger); money never is."""

    list_display = ["code", "kind", "name", "created_at"]
    search_fields = ["code", "name", "document"]
    readonly_fields = ["code", "kind", "created_at"]

    def has_delete_permission(self, request, obj=None):
        return False
