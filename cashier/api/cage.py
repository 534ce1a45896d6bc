"""Cage endpoints: open the cage, sell and redeem value chips, the exchange rate of the day and
foreign banknotes bought at a window."""

from rest_framework import serializers

from core.ids import CodeField
from core.views import CentsField, CommandView, TextField
from staff.permissions import CAGE, roles_allowed
from staff.roles import Role

from ..services.cage import cage_open, chips_purchase, chips_redeem
from ..services.foreign_exchange import PAID_IN, exchange_rate_set, foreign_exchange


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


class RateField(serializers.CharField):
    """A rate as an exact decimal written as text (``"0.921437"``): a JSON number (a float) is
    refused, never rounded into one."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            raise serializers.ValidationError('write the rate as text, e.g. "0.921437" (a JSON number is a float)')
        return super().to_internal_value(data)


class ExchangeRateSet(CommandView):
    """Record the cage's buying rate of a foreign currency for the gaming day (a cage
    supervisor): house units paid for one unit of it, six decimals at most."""

    permission_classes = [roles_allowed(write={Role.CAGE_SUPERVISOR})]

    class Input(serializers.Serializer):
        currency = TextField(max_length=3, help_text="ISO 4217 code, one of CASINO_FOREIGN_CURRENCIES")
        rate = RateField(max_length=20, help_text='house units for one foreign unit, e.g. "0.921437"')

    input_serializer = Input

    def perform(self, data, **ctx):
        return exchange_rate_set(**data, **ctx)


class ForeignExchange(CommandView):
    """Buy a patron's foreign banknotes at the caller's window at the rate of the day, paid in
    value chips or cash of the house currency (rounded down; the remainder on the event). No
    rate of the day for the currency: 409 naming it."""

    permission_classes = [roles_allowed(write=CAGE)]

    class Input(serializers.Serializer):
        currency = TextField(max_length=3, help_text="ISO 4217 code, one of CASINO_FOREIGN_CURRENCIES")
        foreign_cents = CentsField(min_value=1, help_text="hundredths of the foreign currency")
        paid_in = serializers.ChoiceField(choices=PAID_IN)
        patron = CodeField(required=False, help_text="default: the shared anonymous patron")

    input_serializer = Input

    def perform(self, data, **ctx):
        return foreign_exchange(**data, **ctx)
