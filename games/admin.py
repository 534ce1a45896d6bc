from django.contrib import admin

from ledger.admin import ReadOnlyAdmin

from .models import Bet, Round, Table


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
