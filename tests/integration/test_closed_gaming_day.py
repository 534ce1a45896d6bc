"""A closed gaming day keeps the figures it was closed and sealed with (ledger.closed_days):
no table opens and no coup is played on it, and nothing of it is reversed: a coup played on it,
a fill delivered on it, its drop count. Each refusal is a 409 that appends nothing, through the
API a 409 naming the field at fault, the same on a retry with its Idempotency-Key. Its figures
stay put when a table left open from an earlier day, a coup spanning the two days or a
correction of an earlier day would otherwise land on it, and the close racing a table opening
or a reversal lets exactly one of them through."""

from datetime import date, timedelta

import pytest
from rest_framework.test import APIClient

from cashier.reports import cage_accountability_report, table_games_daily_report, variance_report
from cashier.services.cage_shifts import last_shift_event
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
from ledger.models import Event
from ledger.verify import verify_chain
from patrons.models import Patron
from staff.roles import Role, grant

from ..conftest import ACTOR, hand_cage_to, make_patron, opener_body
from .concurrency import run_concurrently

STAFF = {"pit1": Role.PIT_BOSS, "super1": Role.CAGE_SUPERVISOR, "cash1": Role.CASHIER, "run1": Role.RUNNER}
STAFF |= {
    "drop1": Role.DROP_TEAM,
    "drop2": Role.DROP_TEAM,
    "count1": Role.COUNT_TEAM,
    "count2": Role.COUNT_TEAM,
    "pit2": Role.PIT_BOSS,
    "dealer9": Role.DEALER,
}
PAIR = {"type": "chance_simple", "chance": "pair"}

# Two zones 26 hours apart: the same instant is on an earlier gaming day in the first.
EARLY_ZONE, LATE_ZONE = "Etc/GMT+12", "Etc/GMT-14"


@pytest.fixture(autouse=True)
def _database(request):
    """The database for every test; the races take ``committed_db`` (real commits) alone."""
    if "committed_db" not in request.fixturenames:
        request.getfixturevalue("db")


def _staff(django_user_model) -> dict:
    users = {}
    for name, role in STAFF.items():
        users[name] = django_user_model.objects.create_user(username=name, password="x")
        grant(users[name], role)
    last = last_shift_event()
    if last is not None and last.type == "CageShiftOpened":
        hand_cage_to("cash1")  # the issuing cashier's own shift
    return users


def _client(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _play_coup(patron: str, table: str = "R1") -> str:
    coup = round_open(table=table, actor=ACTOR)["round"]
    bet_place(round_id=coup, patron=patron, stake_cents=10_000, bet=PAIR, actor=ACTOR)
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=2, actor=ACTOR)
    return coup


def _deliver_fill(table: str = "R1") -> str:
    serial = slip_request(kind="fill", table=table, denominations={"10000": 3}, actor="pit1")["serial"]
    slip_issue(kind="fill", serial=serial, runner="run1", actor="cash1")
    slip_accept(kind="fill", serial=serial, actor="pit2", count={"10000": 3})
    return serial


def _close_and_count(day: str, table: str = "R1") -> None:
    table_close(code=table, actor=ACTOR)
    drop_box_remove(table=table, gaming_day=day, actor="drop1", removers=["drop1", "drop2"])
    drop_count(table=table, gaming_day=day, cash={}, counters=["count1", "count2"], actor="count1")


def _reports(day: date | str) -> tuple:
    """The day's table games report, variances and cage accountability, without generation times."""
    day = date.fromisoformat(day) if isinstance(day, str) else day
    reports = (table_games_daily_report(day), variance_report(day), cage_accountability_report(day))
    return tuple({k: v for k, v in r.items() if k != "generated_at"} for r in reports)


@pytest.fixture
def closed_day(table, patron, django_user_model):
    """Today's gaming day after a settled coup and a delivered fill at R1, R1 closed and
    counted, and the day closed."""
    users = _staff(django_user_model)
    day = current_gaming_day().isoformat()
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet_place(
        round_id=coup, patron=patron, stake_cents=10_000, bet={"type": "chance_simple", "chance": "pair"}, actor=ACTOR
    )
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=2, actor=ACTOR)
    serial = slip_request(kind="fill", table="R1", denominations={"10000": 3}, actor="pit1")["serial"]
    slip_issue(kind="fill", serial=serial, runner="run1", actor="cash1")
    slip_accept(kind="fill", serial=serial, actor="pit2", count={"10000": 3})
    table_close(code="R1", actor=ACTOR)
    drop_box_remove(table="R1", gaming_day=day, actor="drop1", removers=["drop1", "drop2"])
    drop_count(table="R1", gaming_day=day, cash={}, counters=["count1", "count2"], actor="count1")
    gaming_day_close(gaming_day=day, actor="pit1")
    return {"day": day, "coup": coup, "serial": serial, "users": users}


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
    _refused(
        lambda: drop_box_remove(table="R1", gaming_day=day, actor="drop1", removers=["drop1", "drop2"]), "is closed"
    )
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


def test_the_ledger_refuses_any_event_on_a_closed_day_but_its_seal_whatever_sends_it(cage, django_user_model):
    """``ledger.store.append`` itself: an event dated (``occurred_at``) on a closed day is refused,
    with postings or without; today's are not, and the day's seal may still be recorded on it."""
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
    with pytest.raises(
        StateConflict, match=rf"gaming day {yesterday} is closed: nothing more is recorded on it"
    ) as err:
        with transaction.atomic():
            append(stream="test/late", expected_version=0, actor=ACTOR, events=[
                NewEvent("LateNote", {"text": "no money"}, occurred_at=noon),
            ])  # fmt: skip
    assert (err.value.field, err.value.status, store.head()) == ("gaming_day", 409, before)
    with transaction.atomic():
        (seal,) = append(stream=f"seal/{yesterday}", expected_version=0, actor=ACTOR, events=[
            NewEvent("GamingDaySealed", {"day": yesterday.isoformat()}, occurred_at=noon),
        ])  # fmt: skip
        (today,) = append(stream="test/late", expected_version=0, actor=ACTOR, events=[
            NewEvent("TodaysCorrection", {"cents": 100}, legs),
        ])  # fmt: skip
    assert (seal.gaming_day, today.gaming_day) == (yesterday, current_gaming_day())


# --- every closed-day endpoint through the API: a 409 naming the field, retries change nothing ---


def test_every_closed_day_endpoint_is_a_409_naming_its_field_and_retries_change_nothing(closed_day):
    day, users = closed_day["day"], closed_day["users"]
    pit, count = _client(users["pit1"]), _client(users["count1"])
    calls = [
        (pit, "/api/tables/R1/opener", opener_body(dealer="dealer9", pit_boss="pit1"), "table"),
        (pit, "/api/tables/R7/opener", opener_body(opener_cents=100, dealer="dealer9", pit_boss="pit1"), "table"),
        (pit, f"/api/rounds/{closed_day['coup']}/reversal", {"reason": "wrong", "approver": "super1"}, "round"),
        (
            pit,
            f"/api/cage/slips/fill/{closed_day['serial']}/reverse",
            {"reason": "wrong", "approver": "super1"},
            "serial",
        ),
        (
            count,
            "/api/tables/R1/drop-count-reversal",
            {"gaming_day": day, "reason": "recount", "approver": "pit1"},
            "gaming_day",
        ),
        (
            count,
            "/api/tables/R1/drop-count",
            {"gaming_day": day, "cash": {"100": 1}, "counters": ["count1", "count2"]},
            "gaming_day",
        ),
        (count, "/api/tables/R1/drop-removal", {"gaming_day": day, "removers": ["count1", "count2"]}, "gaming_day"),
    ]
    figures, head = _reports(day), store.head()
    for n, (client, url, body, field) in enumerate(calls):
        answers = [
            client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY=f"closed-{n}"),
            client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY=f"closed-{n}"),
            client.post(url, body, format="json"),
        ]
        for answer in answers:
            assert answer.status_code == 409, (url, answer.status_code, answer.content)
            data = answer.json()
            assert data["error"] == "state_conflict" and data["field"] == field, (url, data)
            assert f"gaming day {day} is closed" in data["detail"], (url, data)
        assert answers[0].json() == answers[1].json()
        assert store.head() == head and _reports(day) == figures, url
    # the refusals left no idempotency record behind: the same keys now work for other requests
    assert verify_chain().ok


def test_cage_purchase_after_the_close_leaves_the_closed_days_figures(closed_day):
    from cashier.services.cage import chips_purchase

    day = closed_day["day"]
    figures, head = _reports(day), store.head()
    with pytest.raises(StateConflict, match="nothing more is recorded on it .PatronRegistered refused."):
        make_patron()  # no event at all lands on the closed day, money or not
    buyer = Patron.objects.order_by("pk").first().code  # the fixture's, registered before the close
    with pytest.raises(StateConflict, match="no money moves on it"):
        chips_purchase(patron=buyer, amount_cents=5_000, actor=ACTOR)
    assert _reports(day)[:2] == figures[:2]  # the table games report and variances do not move
    assert _reports(day)[2] == figures[2]
    assert store.head() == head


# --- a closed day's figures stay put whatever the guards might not look at ----------------------


@pytest.fixture
def two_days(settings, cage, django_user_model):
    """A coup and a fill at R1 on an earlier gaming day (zone EARLY_ZONE); returns a callable that
    moves the clock's zone to LATE_ZONE, where today is a later gaming day."""
    _staff(django_user_model)
    settings.CASINO_TIMEZONE, settings.GAMING_DAY_START = EARLY_ZONE, "00:00"
    early = current_gaming_day()

    def later() -> date:
        settings.CASINO_TIMEZONE = LATE_ZONE
        late = current_gaming_day()
        assert late > early
        return late

    return early, later


def test_round_open_at_a_table_left_open_is_409_on_a_closed_day(two_days, api):
    """R1 opened on the earlier day; the later day (nothing played on it) closes while R1 stays
    open; a coup opened at R1 on the closed day through the API is a 409 naming the table."""
    early, later = two_days
    table_open(code="R1", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={})
    late = later()
    assert gaming_day_close(gaming_day=late.isoformat(), actor="pit1")["tables"] == []
    figures, head = _reports(late), store.head()
    for key in ("ro-1", "ro-1", None):
        extra = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
        answer = api.post("/api/tables/R1/rounds", {}, format="json", **extra)
        assert answer.status_code == 409, answer.json()
        assert answer.json()["field"] == "table" and f"gaming day {late} is closed" in answer.json()["detail"]
    assert _reports(late) == figures
    assert store.head() == head


def test_reversing_an_earlier_days_coup_does_not_land_on_a_closed_today(two_days):
    early, later = two_days
    table_open(code="R1", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={})
    patron = make_patron(100_000)
    coup = _play_coup(patron)
    _close_and_count(early.isoformat())
    late = later()
    gaming_day_close(gaming_day=late.isoformat(), actor="pit1")
    figures, head = _reports(late), store.head()
    try:
        round_reverse(round_id=coup, reason="wrong number", approver="super1", actor="pit1")
    except StateConflict:
        pass
    assert _reports(late) == figures
    assert store.head() == head


def test_reversing_an_earlier_days_fill_does_not_land_on_a_closed_today(two_days):
    early, later = two_days
    table_open(code="R1", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={})
    serial = _deliver_fill()
    late = later()
    gaming_day_close(gaming_day=late.isoformat(), actor="pit1")
    figures, head = _reports(late), store.head()
    from cashier.services.slips import slip_reverse

    try:
        slip_reverse(kind="fill", serial=serial, reason="x", approver="super1", actor="pit1")
    except StateConflict:
        pass
    assert _reports(late) == figures
    assert store.head() == head


def test_a_coup_spanning_into_a_closed_day_moves_no_money_on_it(two_days):
    """The ledger refuses any event on a closed day (ledger.store.append): the bet is a 409, and
    so are closing the betting and recording the number, though they move no money."""
    early, later = two_days
    table_open(code="R1", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={})
    patron = make_patron(100_000)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    late = later()
    gaming_day_close(gaming_day=late.isoformat(), actor="pit1")
    figures, head = _reports(late), store.head()
    with pytest.raises(StateConflict, match=rf"gaming day {late} is closed: no money moves on it") as refused:
        bet_place(round_id=coup, patron=patron, stake_cents=10_000, bet=PAIR, actor=ACTOR)
    assert (refused.value.field, refused.value.status, store.head()) == ("gaming_day", 409, head)
    with pytest.raises(StateConflict, match=rf"gaming day {late} is closed: nothing more is recorded on it"):
        round_close_bets(round_id=coup, actor=ACTOR)
    assert _reports(late) == figures
    assert store.head() == head


def test_a_coup_spanning_a_closed_and_an_open_day_is_not_reversed(two_days):
    """Opened on the earlier day, settled on the later one, the later day closed: refused."""
    early, later = two_days
    table_open(code="R1", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={})
    patron = make_patron(100_000)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    late = later()
    bet_place(round_id=coup, patron=patron, stake_cents=10_000, bet=PAIR, actor=ACTOR)
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=2, actor=ACTOR)
    _close_and_count(late.isoformat())
    gaming_day_close(gaming_day=late.isoformat(), actor="pit1")
    figures, head = _reports(late), store.head()
    with pytest.raises(StateConflict, match=f"gaming day {late} is closed"):
        round_reverse(round_id=coup, reason="wrong number", approver="super1", actor="pit1")
    assert _reports(late) == figures
    assert store.head() == head


# --- the close racing a table opening or a reversal (PostgreSQL, real commits) ----------------


@pytest.mark.postgres
@pytest.mark.parametrize("attempt", range(4))
def test_close_racing_a_table_open_never_both_succeed(committed_db, cage, django_user_model, attempt):
    _staff(django_user_model)
    day = current_gaming_day().isoformat()
    outcomes = run_concurrently(
        lambda: gaming_day_close(gaming_day=day, actor="pit1"),
        lambda: table_open(code="R2", game="english_roulette", opener_cents=100_000, actor=ACTOR, rules={}),
    )
    closed, opened = (not isinstance(o, BaseException) for o in outcomes)
    assert closed != opened, outcomes  # exactly one goes through
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            assert isinstance(outcome, StateConflict), repr(outcome)
    assert verify_chain().ok


@pytest.mark.postgres
@pytest.mark.parametrize("attempt", range(4))
def test_close_racing_a_reversal_the_reversal_is_before_the_close_or_refused(
    committed_db, table, patron, django_user_model, attempt
):
    _staff(django_user_model)
    day = current_gaming_day().isoformat()
    coup = _play_coup(patron)
    _close_and_count(day)
    outcomes = run_concurrently(
        lambda: gaming_day_close(gaming_day=day, actor="pit1"),
        lambda: round_reverse(round_id=coup, reason="wrong number", approver="super1", actor="pit1"),
    )
    assert not isinstance(outcomes[0], BaseException), repr(outcomes[0])
    close_position = outcomes[0]["event"]
    if isinstance(outcomes[1], BaseException):
        assert isinstance(outcomes[1], StateConflict) and "is closed" in outcomes[1].message
    else:
        reversed_at = Event.objects.get(type="RoundReversed").position
        assert reversed_at < close_position
    assert verify_chain().ok


def test_a_role_change_from_manage_py_on_a_closed_day_is_refused_and_leaves_the_sealed_range(
    closed_day, django_user_model
):
    """A shell whose GAMING_DAY_START stamps now with the closed day (the served demo's floor runs
    on the next one): ``manage.py staff_roles`` is refused with the day and the setting named, and
    the role is not granted; the closed day's events stay the range it was closed with."""
    from django.core.management import CommandError, call_command

    day = date.fromisoformat(str(closed_day["day"]))
    last = Event.objects.filter(gaming_day=day).order_by("-position").first().position
    user = django_user_model.objects.create_user(username="newdealer", password="x")
    with pytest.raises(CommandError, match=rf"gaming day {day} is closed: nothing more is recorded on it") as err:
        call_command("staff_roles", "newdealer", "dealer")
    assert "StaffRolesChanged refused" in str(err.value) and "GAMING_DAY_START" in str(err.value)
    assert not user.groups.exists()
    assert Event.objects.filter(gaming_day=day).order_by("-position").first().position == last
