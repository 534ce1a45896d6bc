"""A closed gaming day keeps the figures it was closed and sealed with (ledger.closed_days):
no table opens and no coup is played on it, and nothing of it is reversed: a coup played on it,
a fill delivered on it, its drop count. Each refusal is a 409 that appends nothing."""

from datetime import date, timedelta

import pytest

from cashier.reports import table_games_daily_report, variance_report
from cashier.services.count_room import drop_box_remove, drop_count, drop_count_reverse
from cashier.services.gaming_day import gaming_day_close
from cashier.services.slips import slip_accept, slip_issue, slip_request, slip_reverse
from games.services.bets import bet_place
from games.services.corrections import round_reverse
from games.services.rounds import round_close_bets, round_open, round_record_result
from games.services.tables import table_close, table_open
from ledger import store
from ledger.errors import StateConflict
from ledger.gaming_day import current_gaming_day
from staff.roles import Role, grant

from ..conftest import ACTOR

pytestmark = pytest.mark.django_db

STAFF = {"pit1": Role.PIT_BOSS, "super1": Role.CAGE_SUPERVISOR, "cash1": Role.CASHIER, "run1": Role.RUNNER}
STAFF |= {"count1": Role.COUNT_TEAM, "count2": Role.COUNT_TEAM, "pit2": Role.PIT_BOSS}


@pytest.fixture
def closed_day(table, patron, django_user_model):
    """Today's gaming day after a settled coup and a delivered fill at R1, R1 closed and
    counted, and the day closed."""
    for name, role in STAFF.items():
        grant(django_user_model.objects.create_user(username=name, password="x"), role)
    day = current_gaming_day().isoformat()
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet_place(
        round_id=coup, patron=patron, stake_cents=10_000, bet={"type": "chance_simple", "chance": "pair"}, actor=ACTOR
    )
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=2, actor=ACTOR)
    serial = slip_request(kind="fill", table="R1", denominations={"10000": 3}, actor="pit1")["serial"]
    slip_issue(kind="fill", serial=serial, runner="run1", actor="cash1")
    slip_accept(kind="fill", serial=serial, actor="pit2")
    table_close(code="R1", actor=ACTOR)
    drop_box_remove(table="R1", gaming_day=day, actor="count1")
    drop_count(table="R1", gaming_day=day, cash={}, counters=["count1", "count2"], actor="count1")
    gaming_day_close(gaming_day=day, actor="pit1")
    return {"day": day, "coup": coup, "serial": serial}


def _refused(call, match: str) -> StateConflict:
    before = store.head()
    with pytest.raises(StateConflict, match=match) as err:
        call()
    assert err.value.status == 409 and store.head() == before  # nothing appended
    return err.value


def test_nothing_of_a_closed_day_is_reversed_and_its_report_stands(closed_day):
    day = closed_day["day"]
    report = _figures(day)
    error = _refused(
        lambda: round_reverse(round_id=closed_day["coup"], reason="wrong number", approver="super1", actor="pit1"),
        rf"gaming day {day} is closed: coup 1 at R1 was played on it and stands",
    )
    assert error.field == "round"
    error = _refused(
        lambda: slip_reverse(kind="fill", serial=closed_day["serial"], reason="x", approver="super1", actor="pit1"),
        rf"gaming day {day} is closed: the fill {closed_day['serial']} delivered that day stands",
    )
    assert error.field == "serial"
    error = _refused(
        lambda: drop_count_reverse(table="R1", gaming_day=day, reason="recount", approver="pit1", actor="count1"),
        rf"gaming day {day} is closed: the drop count of R1 stands",
    )
    assert error.field == "gaming_day"
    _refused(
        lambda: drop_count(table="R1", gaming_day=day, cash={"100": 1}, counters=["count1", "count2"], actor="count1"),
        rf"gaming day {day} is closed: no drop count of R1 can be added to it",
    )
    _refused(lambda: drop_box_remove(table="R1", gaming_day=day, actor="count1"), "is closed")
    assert _figures(day) == report


def _figures(day: str) -> tuple:
    """The closed day's table games report and variances, without their generation times."""
    reports = (table_games_daily_report(date.fromisoformat(day)), variance_report(date.fromisoformat(day)))
    return tuple({k: v for k, v in r.items() if k != "generated_at"} for r in reports)


def test_no_table_opens_and_no_coup_is_played_on_a_closed_day(closed_day):
    day = closed_day["day"]
    error = _refused(
        lambda: table_open(code="R1", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={}),
        rf"gaming day {day} is closed: table R1 cannot open on it",
    )
    assert error.field == "table"
    _refused(
        lambda: table_open(code="R2", game="english_roulette", opener_cents=100, actor=ACTOR, rules={}),
        "table R2 cannot open on it",
    )


def test_a_table_still_open_from_an_earlier_day_plays_no_coup_on_a_closed_day(table, django_user_model, monkeypatch):
    """A table that played nothing on a day is not among that day's tables: the day closes while
    it stays open (opened the day before), and it may not then play on the closed day. Here the
    closed day is yesterday (nothing played on it) and the clock is moved back to it."""
    from games.services import rounds

    grant(django_user_model.objects.create_user(username="pit1", password="x"), Role.PIT_BOSS)
    yesterday = current_gaming_day() - timedelta(days=1)
    assert gaming_day_close(gaming_day=yesterday.isoformat(), actor="pit1")["tables"] == []
    monkeypatch.setattr(rounds, "current_gaming_day", lambda: yesterday)
    error = _refused(
        lambda: round_open(table="R1", actor=ACTOR), rf"gaming day {yesterday} is closed: no coup is played at R1"
    )
    assert error.field == "table"
    monkeypatch.undo()
    assert round_open(table="R1", actor=ACTOR)["number"] == 1  # today is open


def test_before_the_close_the_same_reversals_go_through(table, patron, django_user_model):
    for name, role in STAFF.items():
        grant(django_user_model.objects.create_user(username=name, password="x"), role)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=2, actor=ACTOR)
    assert round_reverse(round_id=coup, reason="wrong number", approver="super1", actor="pit1")["round"] == coup


def test_the_ledger_refuses_money_on_a_closed_day_whatever_sends_it(cage, django_user_model):
    """``ledger.store.append`` itself: an event with postings dated (``occurred_at``) on a closed
    day is refused, today's are not, and an event without postings (the seal, the registry) may
    still be recorded on the closed day."""
    from datetime import UTC, datetime, time
    from zoneinfo import ZoneInfo

    from django.conf import settings
    from django.db import transaction

    from ledger.store import Leg, NewEvent, append

    grant(django_user_model.objects.create_user(username="pit1", password="x"), Role.PIT_BOSS)
    yesterday = current_gaming_day() - timedelta(days=1)
    gaming_day_close(gaming_day=yesterday.isoformat(), actor="pit1")
    noon = datetime.combine(yesterday, time(12), tzinfo=ZoneInfo(settings.CASINO_TIMEZONE)).astimezone(UTC)
    legs = [Leg("house:bankroll", -100), Leg("cage:cash", 100)]
    before = store.head()
    with pytest.raises(StateConflict, match=rf"gaming day {yesterday} is closed: no money moves on it") as err:
        with transaction.atomic():
            append(stream="test/late", expected_version=0, actor=ACTOR, events=[
                NewEvent("LateCorrection", {"cents": 100}, legs, occurred_at=noon),
            ])  # fmt: skip
    assert (err.value.field, store.head()) == ("gaming_day", before)
    with transaction.atomic():
        (note,) = append(stream="test/late", expected_version=0, actor=ACTOR, events=[
            NewEvent("LateNote", {"text": "no money"}, occurred_at=noon),
        ])  # fmt: skip
        (today,) = append(stream="test/late", expected_version=1, actor=ACTOR, events=[
            NewEvent("TodaysCorrection", {"cents": 100}, legs),
        ])  # fmt: skip
    assert (note.gaming_day, today.gaming_day) == (yesterday, current_gaming_day())
