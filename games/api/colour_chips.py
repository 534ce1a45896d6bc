"""English roulette's colour chips: the buy and the change inverse."""

from rest_framework import serializers

from core.ids import CodeField
from core.views import CentsField, CommandView, StrictIntegerField, TextField
from staff.permissions import FLOOR, roles_allowed

from ..services.colour_chips import colour_chips_buy, colour_chips_change_inverse


class ColourChipsBuy(CommandView):
    """Buy colour chips at an English roulette table (valid only there)."""

    permission_classes = [roles_allowed(write=FLOOR, table="table")]

    class Input(serializers.Serializer):
        patron = CodeField()
        chips = StrictIntegerField(min_value=1)
        unit_value_cents = CentsField(min_value=1, required=False)
        colour = TextField(max_length=20, required=False)

    input_serializer = Input

    def perform(self, data, *, code, **ctx):
        return colour_chips_buy(table=code, **data, **ctx)


class ColourChipsChangeInverse(CommandView):
    """The change inverse: a patron's colour chips back into value chips."""

    permission_classes = [roles_allowed(write=FLOOR, table="table")]

    class Input(serializers.Serializer):
        patron = CodeField()

    input_serializer = Input

    def perform(self, data, *, code, **ctx):
        return colour_chips_change_inverse(table=code, **data, **ctx)
