"""Black jack, Caribbean stud, baccarat and trente-et-quarante endpoints: bets, deal, cards, decisions."""

from rest_framework import serializers

from core.ids import CodeField
from core.views import CentsField, CommandView, StrictIntegerField, TextField
from staff.permissions import FLOOR, TERMINAL_AND_SHOE, roles_allowed

from ..services.baccarat import baccarat_bet
from ..services.blackjack import DECISIONS, blackjack_bet_place, blackjack_decide
from ..services.caribbean import caribbean_ante, caribbean_burn_card, caribbean_decide, caribbean_deck_change
from ..services.dealing import deal, report_card
from ..services.trente_quarante import tq_bet
from .rounds import Versioned


class BlackjackBetPlace(CommandView):
    """Bet on a box (1–7) as its seated player or behind it."""

    permission_classes = [roles_allowed(write=FLOOR, table="round")]

    class Input(serializers.Serializer):
        patron = CodeField()
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

    permission_classes = [roles_allowed(write=FLOOR, table="round", devices=TERMINAL_AND_SHOE)]

    class Input(serializers.Serializer):
        card = TextField(max_length=2, min_length=2)

    input_serializer = Input
    success_status = 200

    def perform(self, data, *, round_id, **ctx):
        return report_card(round_id=round_id, **data, **ctx)


class BlackjackDecide(CommandView):
    """A player's decision on a black jack coup."""

    permission_classes = [roles_allowed(write=FLOOR, table="round")]

    class Input(Versioned):
        patron = CodeField()
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
        patron = CodeField()
        box = StrictIntegerField(min_value=1, max_value=7)
        ante_cents = CentsField(min_value=1)

    input_serializer = Input

    def perform(self, data, *, round_id, **ctx):
        return caribbean_ante(round_id=round_id, **data, **ctx)


class CaribbeanDecide(CommandView):
    """Fold (passe) or raise (relance) on a Caribbean stud box."""

    permission_classes = [roles_allowed(write=FLOOR, table="round")]

    class Input(serializers.Serializer):
        patron = CodeField()
        box = StrictIntegerField(min_value=1, max_value=7)
        action = serializers.ChoiceField(choices=["fold", "raise"])

    input_serializer = Input
    success_status = 200

    def perform(self, data, *, round_id, **ctx):
        return caribbean_decide(round_id=round_id, **data, **ctx)


class CaribbeanBurnCard(CommandView):
    """Burn a card exposed by mistake on a Caribbean stud coup (sheet 001); the coup goes on, the
    next card of the deck in its place."""

    permission_classes = [roles_allowed(write=FLOOR, table="round", devices=TERMINAL_AND_SHOE)]

    class Input(serializers.Serializer):
        card = TextField(max_length=2, min_length=2)

    input_serializer = Input
    success_status = 200

    def perform(self, data, *, round_id, **ctx):
        return caribbean_burn_card(round_id=round_id, **data, **ctx)


class CaribbeanDeckChange(CommandView):
    """Change the deck of a Caribbean stud coup before the deal, at the patrons' request (sheet
    001): a new deck, its order committed."""

    permission_classes = [roles_allowed(write=FLOOR, table="round")]

    class Input(serializers.Serializer):
        patron = CodeField(required=False)

    input_serializer = Input

    def perform(self, data, *, round_id, **ctx):
        return caribbean_deck_change(round_id=round_id, **data, **ctx)


class BaccaratBet(CommandView):
    """Bet on player, banker or tie at a baccarat table."""

    permission_classes = [roles_allowed(write=FLOOR, table="round")]

    class Input(serializers.Serializer):
        patron = CodeField()
        bet = serializers.ChoiceField(choices=["player", "banker", "tie"])
        stake_cents = CentsField(min_value=1)

    input_serializer = Input

    def perform(self, data, *, round_id, **ctx):
        return baccarat_bet(round_id=round_id, **data, **ctx)


class TrenteQuaranteBet(CommandView):
    """Bet on rouge, noir, couleur or inverse at a trente-et-quarante table."""

    permission_classes = [roles_allowed(write=FLOOR, table="round")]

    class Input(serializers.Serializer):
        patron = CodeField()
        bet = TextField(max_length=20)
        stake_cents = CentsField(min_value=1)

    input_serializer = Input

    def perform(self, data, *, round_id, **ctx):
        return tq_bet(round_id=round_id, **data, **ctx)
