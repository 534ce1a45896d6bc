"""Cage and patron endpoints: thin shells over ``cashier.services``."""

from rest_framework import generics, serializers

from casino.views import CentsField, CommandView, StrictIntegerField
from ledger import accounts, store
from staff.permissions import CAGE, FLOOR, PATRON_DESK, PATRON_READERS, roles_allowed

from .models import Patron
from .services.cage import cage_open, chips_purchase, chips_redeem
from .services.colour_chips import colour_chips_buy, colour_chips_change_inverse
from .services.patrons import patron_register


class PatronSerializer(serializers.ModelSerializer):
    chips_cents = serializers.SerializerMethodField()

    class Meta:
        model = Patron
        fields = ["code", "kind", "created_at", "chips_cents"]

    def get_chips_cents(self, patron) -> int:
        return store.balance(accounts.patron_chips(patron.code))


class PatronList(generics.ListAPIView):
    """Patrons (no identity data in this view) with their value chips in cents."""

    permission_classes = [roles_allowed(read=PATRON_READERS)]

    queryset = Patron.objects.all()
    serializer_class = PatronSerializer


class PatronDetail(generics.RetrieveAPIView):
    permission_classes = [roles_allowed(read=PATRON_READERS)]

    queryset = Patron.objects.all()
    serializer_class = PatronSerializer
    lookup_field = "code"


class PatronRegister(CommandView):
    permission_classes = [roles_allowed(write=PATRON_DESK)]

    class Input(serializers.Serializer):
        kind = serializers.ChoiceField(choices=Patron.Kind.choices)
        name = serializers.CharField(required=False, allow_blank=True, max_length=200, default="")
        document = serializers.CharField(required=False, allow_blank=True, max_length=100, default="")

    input_serializer = Input

    def perform(self, data, **ctx):
        return patron_register(**data, **ctx)


class CageOpen(CommandView):
    permission_classes = [roles_allowed(write=CAGE)]

    class Input(serializers.Serializer):
        cash_cents = CentsField(min_value=0)
        chips_cents = CentsField(min_value=0)

    input_serializer = Input

    def perform(self, data, **ctx):
        return cage_open(**data, **ctx)


class ChipsMovement(serializers.Serializer):
    patron = serializers.CharField(max_length=20)
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


class ColourChipsBuy(CommandView):
    """Buy colour chips at an English roulette table (valid only there)."""

    permission_classes = [roles_allowed(write=FLOOR, table="table")]

    class Input(serializers.Serializer):
        patron = serializers.CharField(max_length=20)
        chips = StrictIntegerField(min_value=1)
        unit_value_cents = CentsField(min_value=1, required=False)
        colour = serializers.CharField(max_length=20, required=False)

    input_serializer = Input

    def perform(self, data, *, code, **ctx):
        return colour_chips_buy(table=code, **data, **ctx)


class ColourChipsChangeInverse(CommandView):
    """The change inverse: a patron's colour chips back into value chips."""

    permission_classes = [roles_allowed(write=FLOOR, table="table")]

    class Input(serializers.Serializer):
        patron = serializers.CharField(max_length=20)

    input_serializer = Input

    def perform(self, data, *, code, **ctx):
        return colour_chips_change_inverse(table=code, **data, **ctx)
