"""Cage endpoints: open the cage, sell and redeem value chips."""

from rest_framework import serializers

from core.ids import CodeField
from core.views import CentsField, CommandView
from staff.permissions import CAGE, roles_allowed

from ..services.cage import cage_open, chips_purchase, chips_redeem


class CageOpen(CommandView):
    permission_classes = [roles_allowed(write=CAGE)]

    class Input(serializers.Serializer):
        cash_cents = CentsField(min_value=0)
        chips_cents = CentsField(min_value=0)

    input_serializer = Input

    def perform(self, data, **ctx):
        return cage_open(**data, **ctx)


class ChipsMovement(serializers.Serializer):
    patron = CodeField()
    amount_cents = CentsField(min_value=1)


class ChipsPurchase(CommandView):
    """Sell value chips to a patron for cash."""

    permission_classes = [roles_allowed(write=CAGE)]

    input_serializer = ChipsMovement

    def perform(self, data, **ctx):
        return chips_purchase(**data, **ctx)


class ChipsRedeem(CommandView):
    """Redeem a patron's value chips for cash."""

    permission_classes = [roles_allowed(write=CAGE)]

    input_serializer = ChipsMovement

    def perform(self, data, **ctx):
        return chips_redeem(**data, **ctx)
