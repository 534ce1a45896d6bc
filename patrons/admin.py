"""Admin for patrons: read-only. A patron's identity (name, identity document) is what the AML
rules rest on: it changes only through ``patrons.services.aml.patron_identity_record`` (``POST
/api/patrons/<code>/identity``, a cashier or cage supervisor), an event on the ledger naming who
recorded it, or is erased by ``manage.py erase_identity`` once its retention has ended. A
patron is registered by ``POST /api/patrons/register``. Money never changes here."""

from django.contrib import admin

from .models import Patron

IDENTITY_SERVICE = (
    "a patron's identity is recorded through POST /api/patrons/<code>/identity (cashier or cage "
    "supervisor; a ledger event), a patron registered through POST /api/patrons/register"
)


@admin.register(Patron)
class PatronAdmin(admin.ModelAdmin):
    list_display = ["code", "kind", "name", "created_at"]
    search_fields = ["code", "name", "document"]
    readonly_fields = ["code", "kind", "name", "document", "created_at", "how_to_change"]

    @admin.display(description="How to change it")
    def how_to_change(self, obj) -> str:
        return f"Read-only here: {IDENTITY_SERVICE}."

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
