"""Routes of the floor: tables, shoes, coups and bets of every game (under /api/)."""

from django.urls import path

from . import card_games, classic_stud, colour_chips, rounds, shoes, tables

urlpatterns = [
    # Bet placement first: Django tries the patterns in order, and these are most of the traffic.
    path("rounds/<str:round_id>/bets", rounds.BetPlace.as_view(), name="bet-place"),
    path("rounds/<str:round_id>/blackjack-bets", card_games.BlackjackBetPlace.as_view(), name="blackjack-bet"),
    path("rounds/<str:round_id>/baccarat-bets", card_games.BaccaratBet.as_view(), name="baccarat-bet"),
    path("rounds/<str:round_id>/trente-quarante-bets", card_games.TrenteQuaranteBet.as_view(), name="tq-bet"),
    path("tables/", tables.TableList.as_view(), name="table-list"),
    path("tables/<str:code>/", tables.TableDetail.as_view(), name="table-detail"),
    path("tables/<str:code>/close", tables.TableClose.as_view(), name="table-close"),
    path("tables/<str:code>/buy-ins", tables.TableBuyIn.as_view(), name="table-buy-in"),
    path("tables/<str:code>/rules", tables.TableRulesChange.as_view(), name="table-rules-change"),
    path("tables/<str:code>/colour-chips", colour_chips.ColourChipsBuy.as_view(), name="colour-chips-buy"),
    path("tables/<str:code>/change-inverse", colour_chips.ColourChipsChangeInverse.as_view(), name="change-inverse"),
    path("tables/<str:code>/rounds", rounds.RoundOpen.as_view(), name="round-open"),
    path("tables/<str:code>/rounds/", rounds.TableRounds.as_view(), name="table-rounds"),
    path("tables/<str:code>/shoes", shoes.ShoeStart.as_view(), name="shoe-start"),
    path("shoes/<str:id>/", shoes.ShoeDetail.as_view(), name="shoe-detail"),
    path("shoes/<str:shoe_id>/close", shoes.ShoeClose.as_view(), name="shoe-close"),
    path("rounds/<str:round_id>/deal", card_games.BlackjackDeal.as_view(), name="blackjack-deal"),
    path("rounds/<str:round_id>/cards", card_games.BlackjackCard.as_view(), name="blackjack-card"),
    path("rounds/<str:round_id>/decisions", card_games.BlackjackDecide.as_view(), name="blackjack-decide"),
    path("rounds/<str:round_id>/antes", card_games.CaribbeanAnte.as_view(), name="caribbean-ante"),
    path("bets/<str:bet_id>/withdraw", rounds.BetWithdraw.as_view(), name="bet-withdraw"),
    path("bets/<str:bet_id>/move", rounds.BetMove.as_view(), name="bet-move"),
    path("shoes/<str:shoe_id>/history", shoes.ShoeHistory.as_view(), name="shoe-history"),
    path("rounds/<str:round_id>/caribbean-decisions", card_games.CaribbeanDecide.as_view(), name="caribbean-decide"),
    path("rounds/<str:round_id>/stud-seats", classic_stud.ClassicStudSit.as_view(), name="classic-stud-sit"),
    path("rounds/<str:round_id>/stud-actions", classic_stud.ClassicStudAct.as_view(), name="classic-stud-act"),
    path("rounds/<str:round_id>/stud-hand", classic_stud.ClassicStudHand.as_view(), name="classic-stud-hand"),
    path("rounds/<str:id>/", rounds.RoundDetail.as_view(), name="round-detail"),
    path("rounds/<str:round_id>/close-bets", rounds.RoundCloseBets.as_view(), name="round-close-bets"),
    path("rounds/<str:round_id>/result", rounds.RoundResult.as_view(), name="round-result"),
    path("rounds/<str:round_id>/void", rounds.RoundVoid.as_view(), name="round-void"),
]
