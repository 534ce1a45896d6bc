"""Table, round and bet endpoints: thin shells over ``games.services``."""

from rest_framework import generics, serializers

from casino.views import CentsField, CommandView, StrictIntegerField

from .models import Bet, Round, Table
from .services.bets import bet_place
from .services.rounds import round_close_bets, round_open, round_record_result, round_void
from .services.tables import table_buy_in, table_close, table_open


class TableSerializer(serializers.ModelSerializer):
    class Meta:
        model = Table
        fields = ["code", "game", "state", "rules", "currency", "version", "rounds_played"]


class BetSerializer(serializers.ModelSerializer):
    patron = serializers.CharField(source="patron.code")

    class Meta:
        model = Bet
        fields = [
            "id",
            "patron",
            "position",
            "stake_cents",
            "chips",
            "announce",
            "announce_group",
            "state",
            "return_cents",
        ]


class RoundSerializer(serializers.ModelSerializer):
    table = serializers.CharField(source="table.code")
    bets = BetSerializer(many=True, read_only=True)

    class Meta:
        model = Round
        fields = ["id", "table", "number", "state", "result", "version", "opened_at", "bets"]


class TableList(generics.ListAPIView):
    queryset = Table.objects.all()
    serializer_class = TableSerializer


class TableDetail(generics.RetrieveAPIView):
    queryset = Table.objects.all()
    serializer_class = TableSerializer
    lookup_field = "code"


class RoundDetail(generics.RetrieveAPIView):
    queryset = Round.objects.select_related("table").prefetch_related("bets__patron")
    serializer_class = RoundSerializer
    lookup_field = "id"


class TableRounds(generics.ListAPIView):
    """The coups of a table, newest first."""

    serializer_class = RoundSerializer

    def get_queryset(self):
        return (
            Round.objects.filter(table__code=self.kwargs["code"])
            .select_related("table")
            .prefetch_related("bets__patron")
            .order_by("-number")
        )


class TableOpen(CommandView):
    """Open a table with its game, rule set and counted opener."""

    class Input(serializers.Serializer):
        game = serializers.ChoiceField(choices=Table.Game.choices)
        opener_cents = CentsField(min_value=0)
        rules = serializers.DictField(required=False)

    input_serializer = Input

    def perform(self, data, *, code, **ctx):
        return table_open(code=code, **data, **ctx)


class TableClose(CommandView):
    class Input(serializers.Serializer):
        pass

    input_serializer = Input
    success_status = 200

    def perform(self, data, *, code, **ctx):
        return table_close(code=code, **ctx)


class TableBuyIn(CommandView):
    """Cash buy-in at the table: cash to the drop box, value chips from the tray."""

    class Input(serializers.Serializer):
        patron = serializers.CharField(max_length=20)
        amount_cents = CentsField(min_value=1)

    input_serializer = Input

    def perform(self, data, *, code, **ctx):
        return table_buy_in(code=code, **data, **ctx)


class RoundOpen(CommandView):
    """Open the next coup of the table for bets."""

    class Input(serializers.Serializer):
        pass

    input_serializer = Input

    def perform(self, data, *, code, **ctx):
        return round_open(table=code, **ctx)


class Versioned(serializers.Serializer):
    expected_version = StrictIntegerField(min_value=0, required=False)


class BetPlace(CommandView):
    """Place a bet (``bet``) or an announced bet (``announce``; ``stake_cents`` is one chip)."""

    class Input(Versioned):
        patron = serializers.CharField(max_length=20)
        stake_cents = CentsField()
        chips = serializers.ChoiceField(choices=Bet.Chips.choices, default=Bet.Chips.VALUE)
        bet = serializers.DictField(required=False)
        announce = serializers.DictField(required=False)

    input_serializer = Input

    def perform(self, data, *, round_id, **ctx):
        return bet_place(round_id=round_id, **data, **ctx)


class RoundCloseBets(CommandView):
    """Rien ne va plus."""

    input_serializer = Versioned
    success_status = 200

    def perform(self, data, *, round_id, **ctx):
        return round_close_bets(round_id=round_id, **data, **ctx)


class RoundResult(CommandView):
    """Record the winning number and settle the coup."""

    class Input(Versioned):
        number = StrictIntegerField()

    input_serializer = Input
    success_status = 200

    def perform(self, data, *, round_id, **ctx):
        return round_record_result(round_id=round_id, **data, **ctx)


class RoundVoid(CommandView):
    class Input(serializers.Serializer):
        reason = serializers.CharField(max_length=500)

    input_serializer = Input
    success_status = 200

    def perform(self, data, *, round_id, **ctx):
        return round_void(round_id=round_id, **data, **ctx)
