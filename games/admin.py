from django.contrib import admin

from ledger.admin import ReadOnlyAdmin

from .models import Bet, BetRefusal, ColourStack, Round, Table


@admin.register(Table)
class TableAdmin(ReadOnlyAdmin):
    list_display = ["code", "game", "state", "rounds_played"]


@admin.register(Round)
class RoundAdmin(ReadOnlyAdmin):
    list_display = ["table", "number", "state", "result", "opened_at"]
    list_filter = ["state", "table"]


@admin.register(Bet)
class BetAdmin(ReadOnlyAdmin):
    list_display = ["round", "patron", "position", "stake_cents", "chips", "state", "return_cents"]
    list_filter = ["state", "chips"]


@admin.register(BetRefusal)
class BetRefusalAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "table_code", "kind", "patron_code", "stake_cents", "actor"]
    list_filter = ["kind", "gaming_day"]


@admin.register(ColourStack)
class ColourStackAdmin(ReadOnlyAdmin):
    list_display = ["table", "colour", "patron", "unit_value_cents", "state"]
