"""Routes of the floor: tables, shoes, coups and bets of every game (under /api/)."""

from django.urls import path

from core import converters  # noqa: F401  registers <id:>, <code:>, <name:>, <serial:>, <day:>

from . import card_games, classic_stud, colour_chips, rounds, shoes, tables

urlpatterns = [
    # Bet placement first: Django tries the patterns in order, and these are most of the traffic.
    path("rounds/<id:round_id>/bets", rounds.BetPlace.as_view(), name="bet-place"),
    path("rounds/<id:round_id>/bet-batches", rounds.BetBatchPlace.as_view(), name="bet-batch-place"),
    path("rounds/<id:round_id>/blackjack-bets", card_games.BlackjackBetPlace.as_view(), name="blackjack-bet"),
    path("rounds/<id:round_id>/baccarat-bets", card_games.BaccaratBet.as_view(), name="baccarat-bet"),
    path("rounds/<id:round_id>/trente-quarante-bets", card_games.TrenteQuaranteBet.as_view(), name="tq-bet"),
    path("tables/", tables.TableList.as_view(), name="table-list"),
    path("tables/<code:code>/", tables.TableDetail.as_view(), name="table-detail"),
    path("tables/<code:code>/buy-ins", tables.TableBuyIn.as_view(), name="table-buy-in"),
    path("tables/<code:code>/colour-chips", colour_chips.ColourChipsBuy.as_view(), name="colour-chips-buy"),
    path("tables/<code:code>/change-inverse", colour_chips.ColourChipsChangeInverse.as_view(), name="change-inverse"),
    path("tables/<code:code>/rounds", rounds.RoundOpen.as_view(), name="round-open"),
    path("tables/<code:code>/rounds/", rounds.TableRounds.as_view(), name="table-rounds"),
    path("tables/<code:code>/shoes", shoes.ShoeStart.as_view(), name="shoe-start"),
    path("shoes/<id:id>/", shoes.ShoeDetail.as_view(), name="shoe-detail"),
    path("shoes/<id:shoe_id>/close", shoes.ShoeClose.as_view(), name="shoe-close"),
    path("rounds/<id:round_id>/deal", card_games.BlackjackDeal.as_view(), name="blackjack-deal"),
    path("rounds/<id:round_id>/cards", card_games.BlackjackCard.as_view(), name="blackjack-card"),
    path("rounds/<id:round_id>/decisions", card_games.BlackjackDecide.as_view(), name="blackjack-decide"),
    path("rounds/<id:round_id>/antes", card_games.CaribbeanAnte.as_view(), name="caribbean-ante"),
    path("bets/<id:bet_id>/withdraw", rounds.BetWithdraw.as_view(), name="bet-withdraw"),
    path("bets/<id:bet_id>/move", rounds.BetMove.as_view(), name="bet-move"),
    path("shoes/<id:shoe_id>/history", shoes.ShoeHistory.as_view(), name="shoe-history"),
    path("rounds/<id:round_id>/caribbean-decisions", card_games.CaribbeanDecide.as_view(), name="caribbean-decide"),
    path("rounds/<id:round_id>/burnt-cards", card_games.CaribbeanBurnCard.as_view(), name="caribbean-burn-card"),
    path("rounds/<id:round_id>/deck-changes", card_games.CaribbeanDeckChange.as_view(), name="caribbean-deck-change"),
    path("rounds/<id:round_id>/stud-seats", classic_stud.ClassicStudSit.as_view(), name="classic-stud-sit"),
    path("rounds/<id:round_id>/stud-actions", classic_stud.ClassicStudAct.as_view(), name="classic-stud-act"),
    path("rounds/<id:round_id>/stud-hand", classic_stud.ClassicStudHand.as_view(), name="classic-stud-hand"),
    path("rounds/<id:id>/", rounds.RoundDetail.as_view(), name="round-detail"),
    path("rounds/<id:round_id>/close-bets", rounds.RoundCloseBets.as_view(), name="round-close-bets"),
    path("rounds/<id:round_id>/result", rounds.RoundResult.as_view(), name="round-result"),
]
