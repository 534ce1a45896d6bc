from django.contrib import admin

from ledger.admin import ReadOnlyAdmin

from .models import Cage, Slip


@admin.register(Cage)
class CageAdmin(ReadOnlyAdmin):
    list_display = ["code", "state", "version"]


@admin.register(Slip)
class SlipAdmin(ReadOnlyAdmin):
    """Fill and credit slips: read-only (a mistake is voided or reversed by the services)."""

    list_display = ["kind", "serial", "table", "amount_cents", "state", "requested_by", "issued_by", "accepted_by"]
    list_filter = ["kind", "state"]
