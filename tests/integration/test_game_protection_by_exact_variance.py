"""A table's and a patron's day against the exact variance of their bets: a rigged run of
numbers raises the alarm with the right z, a normal day does not; the investigation it opens
is noted and closed by a second person."""

import math
from fractions import Fraction as F

import pytest

from games.protection import day_fluctuations
from games.services import investigations as inv
from games.services.bets import bet_place
from games.services.colour_chips import colour_chips_buy
from games.services.rounds import round_close_bets, round_open, round_record_result
from ledger.errors import InvalidInput, NotFound, StateConflict
from ledger.gaming_day import current_gaming_day
from staff.roles import RoleRequired
from tests.conftest import ACTOR, make_patron

pytestmark = pytest.mark.django_db

STAKE = 1_000  # 10 EUR straight up on 17, each coup
COUPS = 120
STRAIGHT_UP = F(35**2, 37) + F(36, 37) - F(1, 37**2)


def _play(patron: str, hits: int) -> None:
    """``COUPS`` coups of one straight-up bet on 17 in colour chips; the ball lands on 17 ``hits``
    times."""
    colour_chips_buy(table="R1", patron=patron, chips=COUPS, unit_value_cents=STAKE, actor=ACTOR)
    for n in range(COUPS):
        coup = round_open(table="R1", actor=ACTOR)["round"]
        bet_place(
            round_id=coup,
            patron=patron,
            stake_cents=STAKE,
            actor=ACTOR,
            bet={"type": "plein", "numbers": [17]},
            chips="colour",
        )
        round_close_bets(round_id=coup, actor=ACTOR)
        round_record_result(round_id=coup, number=17 if n < hits else 4, actor=ACTOR)


def _expected_z(hits: int) -> float:
    win = COUPS * STAKE - hits * 36 * STAKE
    theory = F(COUPS * STAKE, 37)
    return float((win - theory) / F(math.sqrt(COUPS * STAKE**2 * STRAIGHT_UP)))


def test_a_rigged_run_of_seventeens_raises_the_alarm_with_its_exact_z(table):
    patron = make_patron(1_000_000)
    _play(patron, hits=12)
    figures = day_fluctuations(current_gaming_day())
    (row,) = figures["tables"]
    assert row["table"] == "R1" and row["bets"] == COUPS
    assert row["win_cents"] == COUPS * STAKE - 12 * 36 * STAKE == -312_000
    assert row["theoretical_win"] == F(COUPS * STAKE, 37)
    assert row["variance"] == COUPS * STAKE**2 * STRAIGHT_UP
    assert row["z"] == pytest.approx(_expected_z(12)) and round(row["z"], 2) == -4.93
    assert row["alarm"] is True
    (by_patron,) = figures["patrons"]
    assert by_patron["patron"] == patron and by_patron["alarm"] is True and by_patron["tables"] == ["R1"]


def test_a_normal_day_raises_nothing(table):
    patron = make_patron(1_000_000)
    _play(patron, hits=3)
    (row,) = day_fluctuations(current_gaming_day())["tables"]
    assert row["win_cents"] == 12_000
    assert round(row["z"], 3) == round(_expected_z(3), 3) == 0.137
    assert row["alarm"] is False
    assert inv.raise_alarms(current_gaming_day()) == []


def test_a_lower_confidence_setting_makes_the_same_day_an_alarm(table, settings):
    patron = make_patron(1_000_000)
    _play(patron, hits=7)  # z ≈ −2.11
    (row,) = day_fluctuations(current_gaming_day())["tables"]
    assert row["alarm"] is False
    settings.CASINO_FLUCTUATION_Z = "2.0"
    (row,) = day_fluctuations(current_gaming_day())["tables"]
    assert round(row["z"], 2) == round(_expected_z(7), 2) == -2.11 and row["alarm"] is True


def test_too_few_bets_are_not_judged(table):
    patron = make_patron(1_000_000)
    colour_chips_buy(table="R1", patron=patron, chips=1, unit_value_cents=STAKE, actor=ACTOR)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet_place(
        round_id=coup,
        patron=patron,
        stake_cents=STAKE,
        actor=ACTOR,
        bet={"type": "plein", "numbers": [17]},
        chips="colour",
    )
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=17, actor=ACTOR)
    (row,) = day_fluctuations(current_gaming_day())["tables"]
    assert row["z"] < -5 and row["judged"] is False and row["alarm"] is False


def test_the_alarm_opens_one_investigation_noted_and_closed_by_a_second_person(table):
    day = current_gaming_day()
    patron = make_patron(1_000_000)
    _play(patron, hits=12)
    opened = inv.raise_alarms(day)
    assert len(opened) == 2  # the table and the patron
    assert inv.raise_alarms(day) == []  # one open investigation a subject and day
    (case,) = [inv.investigation(key) for key in opened if inv.investigation(key)["subject"] == "table"]
    assert case["table"] == "R1" and case["opened_by"] == "system" and case["automatic"] is True
    assert case["figures"]["z"] == "-4.93" and case["figures"]["win_cents"] == -312_000
    with pytest.raises(StateConflict):
        inv.open_investigation(subject="table", code="R1", gaming_day=day, actor="boss", reason="again")
    with pytest.raises(StateConflict, match="nobody has recorded"):
        inv.close_investigation(key=case["id"], actor="boss2", finding="nothing")
    inv.note_investigation(key=case["id"], actor="boss", note="watched the wheel on camera: a biased rotor suspected")
    with pytest.raises(RoleRequired):
        inv.close_investigation(key=case["id"], actor="boss", finding="rotor changed")
    assert inv.close_investigation(key=case["id"], actor="boss2", finding="rotor changed")["state"] == "closed"
    closed = inv.investigation(case["id"])
    assert closed["state"] == "closed" and closed["closed_by"] == "boss2" and closed["finding"] == "rotor changed"
    assert [n["by"] for n in closed["notes"]] == ["boss"]
    with pytest.raises(StateConflict, match="closed by boss2 already"):
        inv.close_investigation(key=case["id"], actor="boss3", finding="again")
    with pytest.raises(StateConflict):
        inv.note_investigation(key=case["id"], actor="boss", note="late")


def test_the_opener_cannot_close_and_bad_fields_are_named(table):
    day = current_gaming_day()
    key = inv.open_investigation(subject="table", code="R1", gaming_day=day, actor="boss", reason="a hunch")[
        "investigation"
    ]
    inv.note_investigation(key=key, actor="boss3", note="looked at the coups: nothing odd")
    with pytest.raises(RoleRequired, match="opened"):
        inv.close_investigation(key=key, actor="boss", finding="fine")
    for kwargs, field in [
        ({"subject": "wheel", "code": "R1", "gaming_day": day}, "subject"),
        ({"subject": "table", "code": "R9", "gaming_day": day}, "table"),
        ({"subject": "table", "code": "R1", "gaming_day": "today"}, "gaming_day"),
        ({"subject": "table", "code": "R1", "gaming_day": day, "reason": " "}, "reason"),
    ]:
        with pytest.raises(InvalidInput) as refused:
            inv.open_investigation(actor="boss", **kwargs)
        assert refused.value.field == field
    with pytest.raises(InvalidInput) as refused:
        inv.note_investigation(key=key, actor="boss", note="")
    assert refused.value.field == "note"
    with pytest.raises(NotFound):
        inv.investigation("not-an-id")


def test_the_beat_task_opens_the_alarms_investigations_by_itself(table, settings):
    from games.tasks import raise_fluctuation_alarms

    assert settings.CELERY_BEAT_SCHEDULE["fluctuation-alarms"]["task"] == "games.tasks.raise_fluctuation_alarms"
    _play(make_patron(1_000_000), hits=12)
    opened = raise_fluctuation_alarms()
    assert sorted(inv.investigation(key)["subject"] for key in opened) == ["patron", "table"]
    assert raise_fluctuation_alarms() == []
