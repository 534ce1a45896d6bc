"""Every refused bet is recorded, whatever the path: a bet the demo places straight
through the services and the table refuses over its limit is on the floor like one refused
through the API."""

import pytest

from demo.roulette import SessionReport, _try
from games.models import BetRefusal
from games.services.rounds import round_close_bets, round_open
from tests.conftest import ACTOR

pytestmark = pytest.mark.django_db


def test_a_bet_the_demo_places_over_the_table_maximum_is_recorded_as_refused(colour_patron):
    patron = colour_patron
    coup = round_open(table="R1", actor=ACTOR)["round"]
    report = SessionReport(0, 0, 0, 0, {}, 0)
    # 150.00 EUR of colour chips en plein: R1's inside maximum is 100.00 EUR.
    bet = {"type": "plein", "numbers": [17]}
    _try(report, round_id=coup, patron=patron, stake_cents=15_000, chips="colour", bet=bet)
    assert report.refused == 1
    (refusal,) = BetRefusal.objects.all()
    assert (refusal.table_code, refusal.patron_code, refusal.stake_cents, refusal.kind) == (
        "R1",
        patron,
        15_000,
        "table_maximum",
    )
    assert refusal.actor == "demo-dealer"


def test_a_demo_bet_refused_for_want_of_chips_is_recorded_in_currency_units(table):
    from tests.conftest import make_patron

    broke = make_patron(0)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    report = SessionReport(0, 0, 0, 0, {}, 0)
    _try(report, round_id=coup, patron=broke, stake_cents=1_000, bet={"type": "chance_simple", "chance": "rouge"})
    assert report.refused == 1
    (refusal,) = BetRefusal.objects.all()
    assert (refusal.table_code, refusal.patron_code, refusal.stake_cents, refusal.kind) == (
        "R1",
        broke,
        1_000,
        "insufficient_chips",
    )
    assert refusal.message == f"{broke} holds 0.00 EUR of value chips, less than the 10.00 EUR staked"


def test_a_demo_bet_after_rien_ne_va_plus_is_recorded_as_betting_closed(colour_patron):
    coup = round_open(table="R1", actor=ACTOR)["round"]
    round_close_bets(round_id=coup, actor=ACTOR)
    report = SessionReport(0, 0, 0, 0, {}, 0)
    _try(
        report, round_id=coup, patron=colour_patron, stake_cents=1_000, bet={"type": "chance_simple", "chance": "rouge"}
    )
    assert report.refused == 1
    (refusal,) = BetRefusal.objects.all()
    assert (refusal.kind, refusal.stake_cents, refusal.patron_code) == ("betting_closed", 1_000, colour_patron)
    assert "rien ne va plus" in refusal.message


def test_a_bet_on_a_coup_of_a_closed_table_is_recorded_as_table_closed(table):
    from games.services.rounds import round_void
    from games.services.tables import table_close
    from tests.conftest import make_patron

    patron = make_patron(100_000)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    round_void(round_id=coup, reason="no bet", actor=ACTOR)
    table_close(code="R1", actor=ACTOR)
    report = SessionReport(0, 0, 0, 0, {}, 0)
    _try(report, round_id=coup, patron=patron, stake_cents=1_000, bet={"type": "chance_simple", "chance": "noir"})
    assert report.refused == 1
    (refusal,) = BetRefusal.objects.all()
    assert (refusal.kind, refusal.table_code, refusal.stake_cents) == ("table_closed", "R1", 1_000)
    assert refusal.message.startswith("table R1 is closed: ")
