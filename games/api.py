"""Table, round and bet endpoints: thin shells over ``games.services``."""

from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.views import CentsField, CommandView, StrictIntegerField
from staff.permissions import FLOOR, FLOOR_READERS, PIT, roles_allowed

from .models import Bet, Round, Shoe, Table
from .services.baccarat import baccarat_bet, shoe_history
from .services.bet_moves import bet_move, bet_withdraw
from .services.bets import bet_place
from .services.blackjack import DECISIONS, blackjack_bet_place, blackjack_decide
from .services.caribbean import caribbean_ante, caribbean_decide
from .services.dealing import deal, report_card
from .services.rounds import round_close_bets, round_open, round_record_result, round_void
from .services.shoes import shoe_close, shoe_start
from .services.table_rules import table_rules_change
from .services.tables import table_buy_in, table_close, table_open
from .services.trente_quarante import tq_bet


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
    permission_classes = [roles_allowed(read=FLOOR_READERS)]

    queryset = Table.objects.all()
    serializer_class = TableSerializer


class TableDetail(generics.RetrieveAPIView):
    permission_classes = [roles_allowed(read=FLOOR_READERS, table="table")]

    queryset = Table.objects.all()
    serializer_class = TableSerializer
    lookup_field = "code"


class RoundDetail(generics.RetrieveAPIView):
    permission_classes = [roles_allowed(read=FLOOR_READERS, table="round")]

    queryset = Round.objects.select_related("table").prefetch_related("bets__patron")
    serializer_class = RoundSerializer
    lookup_field = "id"


class TableRounds(generics.ListAPIView):
    """The coups of a table, newest first."""

    permission_classes = [roles_allowed(read=FLOOR_READERS, table="table")]

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

    permission_classes = [roles_allowed(write=PIT)]

    class Input(serializers.Serializer):
        game = serializers.ChoiceField(choices=Table.Game.choices)
        opener_cents = CentsField(min_value=0)
        rules = serializers.DictField(required=False)

    input_serializer = Input

    def perform(self, data, *, code, **ctx):
        return table_open(code=code, **data, **ctx)


class TableClose(CommandView):
    permission_classes = [roles_allowed(write=PIT)]

    class Input(serializers.Serializer):
        pass

    input_serializer = Input
    success_status = 200

    def perform(self, data, *, code, **ctx):
        return table_close(code=code, **ctx)


class TableRulesChange(CommandView):
    """Change an open table's rule options between coups (a pit boss; event ``TableRulesChanged``
    with the rule set before and after)."""

    permission_classes = [roles_allowed(write=PIT)]
    success_status = 200

    class Input(serializers.Serializer):
        rules = serializers.DictField()

    input_serializer = Input

    def perform(self, data, *, code, **ctx):
        return table_rules_change(code=code, **data, **ctx)


class TableBuyIn(CommandView):
    """Cash buy-in at the table: cash to the drop box, value chips from the tray."""

    permission_classes = [roles_allowed(write=FLOOR, table="table")]

    class Input(serializers.Serializer):
        patron = serializers.CharField(max_length=20)
        amount_cents = CentsField(min_value=1)

    input_serializer = Input

    def perform(self, data, *, code, **ctx):
        return table_buy_in(code=code, **data, **ctx)


class RoundOpen(CommandView):
    """Open the next coup of the table for bets."""

    permission_classes = [roles_allowed(write=FLOOR, table="table")]

    class Input(serializers.Serializer):
        pass

    input_serializer = Input

    def perform(self, data, *, code, **ctx):
        return round_open(table=code, **ctx)


class Versioned(serializers.Serializer):
    expected_version = StrictIntegerField(min_value=0, required=False)


class BetPlace(CommandView):
    """Place a bet (``bet``) or an announced bet (``announce``; ``stake_cents`` is one chip)."""

    permission_classes = [roles_allowed(write=FLOOR, table="round")]

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

    permission_classes = [roles_allowed(write=FLOOR, table="round")]

    input_serializer = Versioned
    success_status = 200

    def perform(self, data, *, round_id, **ctx):
        return round_close_bets(round_id=round_id, **data, **ctx)


class RoundResult(CommandView):
    """Record the winning number and settle the coup."""

    permission_classes = [roles_allowed(write=FLOOR, table="round")]

    class Input(Versioned):
        number = StrictIntegerField()

    input_serializer = Input
    success_status = 200

    def perform(self, data, *, round_id, **ctx):
        return round_record_result(round_id=round_id, **data, **ctx)


class RoundVoid(CommandView):
    permission_classes = [roles_allowed(write=PIT)]

    class Input(serializers.Serializer):
        reason = serializers.CharField(max_length=500)

    input_serializer = Input
    success_status = 200

    def perform(self, data, *, round_id, **ctx):
        return round_void(round_id=round_id, **data, **ctx)


class ShoeSerializer(serializers.ModelSerializer):
    table = serializers.CharField(source="table.code")
    cards_drawn = serializers.SerializerMethodField()

    class Meta:
        model = Shoe
        fields = ["id", "table", "mode", "decks", "state", "commitment", "cut_position", "cards_drawn", "version"]

    def get_cards_drawn(self, shoe) -> int:
        return len(shoe.drawn)


class ShoeDetail(generics.RetrieveAPIView):
    """A shoe; its order and salt are never shown here (``ShoeClosed`` reveals them)."""

    permission_classes = [roles_allowed(read=FLOOR_READERS, table="shoe")]

    queryset = Shoe.objects.select_related("table")
    serializer_class = ShoeSerializer
    lookup_field = "id"


class ShoeStart(CommandView):
    """Put a new shoe in play at a black jack table (``shuffled`` by the backend, or ``reader``)."""

    permission_classes = [roles_allowed(write=FLOOR, table="table")]

    class Input(serializers.Serializer):
        mode = serializers.ChoiceField(choices=Shoe.Mode.choices, default=Shoe.Mode.SHUFFLED)

    input_serializer = Input

    def perform(self, data, *, code, **ctx):
        return shoe_start(table=code, **data, **ctx)


class ShoeClose(CommandView):
    """Close a shoe between coups; its order and salt are revealed in the ledger."""

    permission_classes = [roles_allowed(write=FLOOR, table="shoe")]

    class Input(serializers.Serializer):
        pass

    input_serializer = Input
    success_status = 200

    def perform(self, data, *, shoe_id, **ctx):
        return shoe_close(shoe_id=shoe_id, **ctx)


class BlackjackBetPlace(CommandView):
    """Bet on a box (1–7) as its seated player or behind it."""

    permission_classes = [roles_allowed(write=FLOOR, table="round")]

    class Input(serializers.Serializer):
        patron = serializers.CharField(max_length=20)
        box = StrictIntegerField(min_value=1, max_value=7)
        stake_cents = CentsField(min_value=1)
        seated = serializers.BooleanField(default=False)

    input_serializer = Input

    def perform(self, data, *, round_id, **ctx):
        return blackjack_bet_place(round_id=round_id, **data, **ctx)


class BlackjackDeal(CommandView):
    """Deal a card game's coup whose bets are closed (black jack, Caribbean stud)."""

    permission_classes = [roles_allowed(write=FLOOR, table="round")]

    class Input(serializers.Serializer):
        pass

    input_serializer = Input
    success_status = 200

    def perform(self, data, *, round_id, **ctx):
        return deal(round_id=round_id, **ctx)


class BlackjackCard(CommandView):
    """The card-reading shoe or dealer terminal reports the next card (rank 23456789TJQKA + suit SHDC)."""

    permission_classes = [roles_allowed(write=FLOOR, table="round")]

    class Input(serializers.Serializer):
        card = serializers.CharField(max_length=2, min_length=2)

    input_serializer = Input
    success_status = 200

    def perform(self, data, *, round_id, **ctx):
        return report_card(round_id=round_id, **data, **ctx)


class BlackjackDecide(CommandView):
    """A player's decision on a black jack coup."""

    permission_classes = [roles_allowed(write=FLOOR, table="round")]

    class Input(Versioned):
        patron = serializers.CharField(max_length=20)
        box = StrictIntegerField(min_value=1, max_value=7)
        action = serializers.ChoiceField(choices=sorted(DECISIONS))
        hand_index = StrictIntegerField(min_value=0, max_value=20, required=False)
        amount_cents = CentsField(min_value=0, required=False)
        accept = serializers.BooleanField(required=False)
        follow = serializers.BooleanField(required=False)
        follows = serializers.ChoiceField(choices=["double", "split"], required=False)

    input_serializer = Input
    success_status = 200

    def perform(self, data, *, round_id, **ctx):
        return blackjack_decide(round_id=round_id, **data, **ctx)


class CaribbeanAnte(CommandView):
    """Post an ante on a Caribbean stud box (1–7, one player a box)."""

    permission_classes = [roles_allowed(write=FLOOR, table="round")]

    class Input(serializers.Serializer):
        patron = serializers.CharField(max_length=20)
        box = StrictIntegerField(min_value=1, max_value=7)
        ante_cents = CentsField(min_value=1)

    input_serializer = Input

    def perform(self, data, *, round_id, **ctx):
        return caribbean_ante(round_id=round_id, **data, **ctx)


class CaribbeanDecide(CommandView):
    """Fold (passe) or raise (relance) on a Caribbean stud box."""

    permission_classes = [roles_allowed(write=FLOOR, table="round")]

    class Input(serializers.Serializer):
        patron = serializers.CharField(max_length=20)
        box = StrictIntegerField(min_value=1, max_value=7)
        action = serializers.ChoiceField(choices=["fold", "raise"])

    input_serializer = Input
    success_status = 200

    def perform(self, data, *, round_id, **ctx):
        return caribbean_decide(round_id=round_id, **data, **ctx)


class BaccaratBet(CommandView):
    """Bet on player, banker or tie at a baccarat table."""

    permission_classes = [roles_allowed(write=FLOOR, table="round")]

    class Input(serializers.Serializer):
        patron = serializers.CharField(max_length=20)
        bet = serializers.ChoiceField(choices=["player", "banker", "tie"])
        stake_cents = CentsField(min_value=1)

    input_serializer = Input

    def perform(self, data, *, round_id, **ctx):
        return baccarat_bet(round_id=round_id, **data, **ctx)


class ShoeHistory(APIView):
    """A baccarat shoe's history: the bead plate and the big road (B / P / T marks)."""

    permission_classes = [roles_allowed(read=FLOOR_READERS, table="shoe")]

    @extend_schema(responses={200: dict})
    def get(self, request, shoe_id):
        return Response(shoe_history(shoe_id))


class TrenteQuaranteBet(CommandView):
    """Bet on rouge, noir, couleur or inverse at a trente-et-quarante table."""

    permission_classes = [roles_allowed(write=FLOOR, table="round")]

    class Input(serializers.Serializer):
        patron = serializers.CharField(max_length=20)
        bet = serializers.CharField(max_length=20)
        stake_cents = CentsField(min_value=1)

    input_serializer = Input

    def perform(self, data, *, round_id, **ctx):
        return tq_bet(round_id=round_id, **data, **ctx)


class BetWithdraw(CommandView):
    """Take a bet back while betting is open (never a bet in prison)."""

    permission_classes = [roles_allowed(write=FLOOR, table="bet")]

    class Input(serializers.Serializer):
        patron = serializers.CharField(max_length=20)

    input_serializer = Input
    success_status = 200

    def perform(self, data, *, bet_id, **ctx):
        return bet_withdraw(bet_id=bet_id, **data, **ctx)


class BetMove(CommandView):
    """Move a bet to another chance while betting is open (baccarat, trente-et-quarante)."""

    permission_classes = [roles_allowed(write=FLOOR, table="bet")]

    class Input(serializers.Serializer):
        patron = serializers.CharField(max_length=20)
        to = serializers.CharField(max_length=20)

    input_serializer = Input
    success_status = 200

    def perform(self, data, *, bet_id, **ctx):
        return bet_move(bet_id=bet_id, **data, **ctx)
