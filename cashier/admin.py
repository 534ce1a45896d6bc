from django.contrib import admin

from ledger.admin import ReadOnlyAdmin

from .models import Cage, CreditLine, Marker, Slip


@admin.register(Cage)
class CageAdmin(ReadOnlyAdmin):
    list_display = ["code", "state", "version"]


@admin.register(Slip)
class SlipAdmin(ReadOnlyAdmin):
    """Fill and credit slips: read-only (a mistake is voided or reversed by the services)."""

    list_display = ["kind", "serial", "table", "amount_cents", "state", "requested_by", "issued_by", "accepted_by"]
    list_filter = ["kind", "state"]


@admin.register(CreditLine)
class CreditLineAdmin(ReadOnlyAdmin):
    """Credit lines: read-only (a cage supervisor approves them through the services)."""

    list_display = ["patron", "limit_cents", "approved_by", "approved_at"]


@admin.register(Marker)
class MarkerAdmin(ReadOnlyAdmin):
    """Markers: read-only (issued, transferred and paid through the services)."""

    list_display = ["serial", "patron", "amount_cents", "paid_cents", "table_code", "state", "issued_by", "issued_at"]
    list_filter = ["state", "year"]
