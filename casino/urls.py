"""URL map: the API under /api/, OpenAPI schema and docs, admin."""

from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from cashier import aml_api, self_limit_api
from cashier import api as cage
from dashboard import views as dashboard_views
from games import api as games
from games import api_classic_stud as classic_stud
from ledger import api as ledger
from ledger.export import api as exports

api = [
    # Bet placement first: Django tries the patterns in order, and these are most of the traffic.
    path("rounds/<str:round_id>/bets", games.BetPlace.as_view(), name="bet-place"),
    path("rounds/<str:round_id>/blackjack-bets", games.BlackjackBetPlace.as_view(), name="blackjack-bet"),
    path("rounds/<str:round_id>/baccarat-bets", games.BaccaratBet.as_view(), name="baccarat-bet"),
    path("rounds/<str:round_id>/trente-quarante-bets", games.TrenteQuaranteBet.as_view(), name="tq-bet"),
    path("patrons/", cage.PatronList.as_view(), name="patron-list"),
    path("patrons/register", cage.PatronRegister.as_view(), name="patron-register"),
    path("patrons/<str:code>/", cage.PatronDetail.as_view(), name="patron-detail"),
    path("patrons/<str:code>/self-limit", self_limit_api.PatronSelfLimit.as_view(), name="patron-self-limit"),
    path("patrons/<str:code>/identity", aml_api.PatronIdentityRecord.as_view(), name="patron-identity"),
    path("cage/open", cage.CageOpen.as_view(), name="cage-open"),
    path("cage/purchases", cage.ChipsPurchase.as_view(), name="chips-purchase"),
    path("cage/redemptions", cage.ChipsRedeem.as_view(), name="chips-redeem"),
    path("tables/", games.TableList.as_view(), name="table-list"),
    path("tables/<str:code>/", games.TableDetail.as_view(), name="table-detail"),
    path("tables/<str:code>/open", games.TableOpen.as_view(), name="table-open"),
    path("tables/<str:code>/close", games.TableClose.as_view(), name="table-close"),
    path("tables/<str:code>/buy-ins", games.TableBuyIn.as_view(), name="table-buy-in"),
    path("tables/<str:code>/rules", games.TableRulesChange.as_view(), name="table-rules-change"),
    path("tables/<str:code>/colour-chips", cage.ColourChipsBuy.as_view(), name="colour-chips-buy"),
    path("tables/<str:code>/change-inverse", cage.ColourChipsChangeInverse.as_view(), name="change-inverse"),
    path("tables/<str:code>/rounds", games.RoundOpen.as_view(), name="round-open"),
    path("tables/<str:code>/rounds/", games.TableRounds.as_view(), name="table-rounds"),
    path("tables/<str:code>/shoes", games.ShoeStart.as_view(), name="shoe-start"),
    path("shoes/<str:id>/", games.ShoeDetail.as_view(), name="shoe-detail"),
    path("shoes/<str:shoe_id>/close", games.ShoeClose.as_view(), name="shoe-close"),
    path("rounds/<str:round_id>/deal", games.BlackjackDeal.as_view(), name="blackjack-deal"),
    path("rounds/<str:round_id>/cards", games.BlackjackCard.as_view(), name="blackjack-card"),
    path("rounds/<str:round_id>/decisions", games.BlackjackDecide.as_view(), name="blackjack-decide"),
    path("rounds/<str:round_id>/antes", games.CaribbeanAnte.as_view(), name="caribbean-ante"),
    path("bets/<str:bet_id>/withdraw", games.BetWithdraw.as_view(), name="bet-withdraw"),
    path("bets/<str:bet_id>/move", games.BetMove.as_view(), name="bet-move"),
    path("shoes/<str:shoe_id>/history", games.ShoeHistory.as_view(), name="shoe-history"),
    path("rounds/<str:round_id>/caribbean-decisions", games.CaribbeanDecide.as_view(), name="caribbean-decide"),
    path("rounds/<str:round_id>/stud-seats", classic_stud.ClassicStudSit.as_view(), name="classic-stud-sit"),
    path("rounds/<str:round_id>/stud-actions", classic_stud.ClassicStudAct.as_view(), name="classic-stud-act"),
    path("rounds/<str:round_id>/stud-hand", classic_stud.ClassicStudHand.as_view(), name="classic-stud-hand"),
    path("rounds/<str:id>/", games.RoundDetail.as_view(), name="round-detail"),
    path("rounds/<str:round_id>/close-bets", games.RoundCloseBets.as_view(), name="round-close-bets"),
    path("rounds/<str:round_id>/result", games.RoundResult.as_view(), name="round-result"),
    path("rounds/<str:round_id>/void", games.RoundVoid.as_view(), name="round-void"),
    path("events/", ledger.EventList.as_view(), name="event-list"),
    path("balances/", ledger.BalanceList.as_view(), name="balance-list"),
    path("health/", ledger.Health.as_view(), name="health"),
    path("projections/", ledger.ProjectionStatus.as_view(), name="projection-status"),
    path("audit/<str:scope>/<str:key>/", ledger.AuditTrail.as_view(), name="audit-trail"),
    path("stats/tables/", ledger.TableStatsList.as_view(), name="table-stats"),
    path("ratings/", ledger.RatingList.as_view(), name="patron-ratings"),
    path("exports/gaming-days/<str:day>.zip", exports.GamingDayExport.as_view(), name="gaming-day-export"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
]

handler404 = "casino.api.not_found"

urlpatterns = [
    path("", dashboard_views.home),  # the floor for a pit boss, else the API docs
    path("dashboard/", include("dashboard.urls")),
    path("api/", RedirectView.as_view(pattern_name="docs")),
    path("admin/", admin.site.urls),
    path("api/", include(api)),  # before the accounting: the bets (none of their paths overlap)
    path("api/", include("cashier.accounting_urls")),  # cage and table accounting, reports (issue #7)
    path("api/staff/", include("staff.urls")),  # assignments, device tokens, role changes (issue #10)
    path("api/auth/", include("rest_framework.urls")),  # session login/logout for people (issue #10)
]
