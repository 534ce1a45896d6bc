"""Coup endpoints every game shares: open, read, bets, rien ne va plus, result (the void, which may
wait for a second signature: ``approvals.api.makers.RoundVoid``)."""

from rest_framework import generics, serializers

from core.ids import CodeField
from core.views import CentsField, CommandView, StrictIntegerField, TextField
from staff.permissions import FLOOR, FLOOR_READERS, TERMINAL_AND_SHOE, roles_allowed

from ..models import Bet, Round
from ..services.bet_batches import bet_batch_place
from ..services.bet_moves import bet_move, bet_withdraw
from ..services.bets import bet_place
from ..services.rounds import round_close_bets, round_open, round_record_result


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


class RoundDetail(generics.RetrieveAPIView):
    permission_classes = [roles_allowed(read=FLOOR_READERS, table="round", devices=TERMINAL_AND_SHOE)]

    queryset = Round.objects.select_related("table").prefetch_related("bets__patron")
    serializer_class = RoundSerializer
    lookup_field = "id"


class TableRounds(generics.ListAPIView):
    """The coups of a table, newest first."""

    permission_classes = [roles_allowed(read=FLOOR_READERS, table="table", devices=TERMINAL_AND_SHOE)]

    serializer_class = RoundSerializer

    def get_queryset(self):
        return (
            Round.objects.filter(table__code=self.kwargs["code"])
            .select_related("table")
            .prefetch_related("bets__patron")
            .order_by("-number")
        )


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
        patron = CodeField()
        stake_cents = CentsField()
        chips = serializers.ChoiceField(choices=Bet.Chips.choices, default=Bet.Chips.VALUE)
        bet = serializers.DictField(required=False)
        announce = serializers.DictField(required=False)

    input_serializer = Input

    def perform(self, data, *, round_id, **ctx):
        return bet_place(round_id=round_id, **data, **ctx)


class BetBatchPlace(CommandView):
    """Up to 1,000 bets of many patrons on one coup, each accepted or refused on its own
    (``bet_batch_place``); 201 with the per-bet results in order."""

    permission_classes = [roles_allowed(write=FLOOR, table="round")]

    class Input(serializers.Serializer):
        # Each bet is checked by the service, one by one: a bad bet is refused, not the batch.
        bets = serializers.JSONField()

    input_serializer = Input

    def perform(self, data, *, round_id, **ctx):
        return bet_batch_place(round_id=round_id, bets=data["bets"], **ctx)


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


class BetWithdraw(CommandView):
    """Take a bet back while betting is open (never a bet in prison)."""

    permission_classes = [roles_allowed(write=FLOOR, table="bet")]

    class Input(serializers.Serializer):
        patron = CodeField()

    input_serializer = Input
    success_status = 200

    def perform(self, data, *, bet_id, **ctx):
        return bet_withdraw(bet_id=bet_id, **data, **ctx)


class BetMove(CommandView):
    """Move a bet to another chance while betting is open (baccarat, trente-et-quarante)."""

    permission_classes = [roles_allowed(write=FLOOR, table="bet")]

    class Input(serializers.Serializer):
        patron = CodeField()
        to = TextField(max_length=20)

    input_serializer = Input
    success_status = 200

    def perform(self, data, *, bet_id, **ctx):
        return bet_move(bet_id=bet_id, **data, **ctx)
