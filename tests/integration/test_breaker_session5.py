"""Breaker, session 5: closed gaming days (ledger.closed_days), refused bets retried with
an Idempotency-Key (games.services.refusals), the assembled ledger hash (ledger.hashing) and the
identity endpoints' 404 for an unknown patron."""

import hashlib
import os
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from cashier.reports import cage_accountability_report, table_games_daily_report, variance_report
from cashier.services.count_room import drop_box_remove, drop_count
from cashier.services.gaming_day import gaming_day_close
from cashier.services.slips import slip_accept, slip_issue, slip_request
from games.models import BetRefusal
from games.services.bets import bet_place
from games.services.corrections import round_reverse
from games.services.rounds import round_close_bets, round_open, round_record_result
from games.services.tables import table_close, table_open
from ledger import store
from ledger.errors import StateConflict
from ledger.gaming_day import current_gaming_day
from ledger.hashing import canonical_json, event_hash_and_data, iso_utc
from ledger.models import Event, Posting
from ledger.store import Leg, NewEvent
from ledger.verify import verify_chain
from staff.roles import Role, grant

from ..conftest import ACTOR, make_patron
from .concurrency import run_concurrently

STAFF = {"pit1": Role.PIT_BOSS, "pit2": Role.PIT_BOSS, "super1": Role.CAGE_SUPERVISOR}
STAFF |= {"cash1": Role.CASHIER, "run1": Role.RUNNER, "count1": Role.COUNT_TEAM, "count2": Role.COUNT_TEAM}
PAIR = {"type": "chance_simple", "chance": "pair"}
PLEIN_17 = {"type": "plein", "numbers": [17]}

# Two zones 26 hours apart: the same instant is on an earlier gaming day in the first.
EARLY_ZONE, LATE_ZONE = "Etc/GMT+12", "Etc/GMT-14"


@pytest.fixture(autouse=True)
def _database(request):
    if "committed_db" not in request.fixturenames:
        request.getfixturevalue("db")


def _staff(django_user_model) -> dict:
    users = {}
    for name, role in STAFF.items():
        users[name] = django_user_model.objects.create_user(username=name, password="x")
        grant(users[name], role)
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
    slip_accept(kind="fill", serial=serial, actor="pit2")
    return serial


def _close_and_count(day: str, table: str = "R1") -> None:
    table_close(code=table, actor=ACTOR)
    drop_box_remove(table=table, gaming_day=day, actor="count1")
    drop_count(table=table, gaming_day=day, cash={}, counters=["count1", "count2"], actor="count1")


def _figures(day: date | str) -> tuple:
    """The day's table games report, variances and cage accountability, without generation times."""
    day = date.fromisoformat(day) if isinstance(day, str) else day
    reports = (table_games_daily_report(day), variance_report(day), cage_accountability_report(day))
    return tuple({k: v for k, v in r.items() if k != "generated_at"} for r in reports)


# --- 1. closed day through the API: 409 naming the field, retried with its key, nothing moves -----


@pytest.fixture
def closed_day(table, patron, django_user_model):
    users = _staff(django_user_model)
    day = current_gaming_day().isoformat()
    coup = _play_coup(patron)
    serial = _deliver_fill()
    _close_and_count(day)
    gaming_day_close(gaming_day=day, actor="pit1")
    return {"day": day, "coup": coup, "serial": serial, "users": users}


def test_every_closed_day_endpoint_is_a_409_naming_its_field_and_retries_change_nothing(closed_day):
    day, users = closed_day["day"], closed_day["users"]
    pit, count = _client(users["pit1"]), _client(users["count1"])
    calls = [
        (pit, "/api/tables/R1/open", {"game": "english_roulette", "opener_cents": 5_000_000}, "table"),
        (pit, "/api/tables/R7/open", {"game": "english_roulette", "opener_cents": 100}, "table"),
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
        (count, "/api/tables/R1/drop-removal", {"gaming_day": day}, "gaming_day"),
    ]
    figures, head = _figures(day), store.head()
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
        assert store.head() == head and _figures(day) == figures, url
    # the refusals left no idempotency record behind: the same keys now work for other requests
    assert verify_chain().ok


# --- 1b. a closed day's figures moved by what the guards do not look at ----------------------------


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
    figures, head = _figures(late), store.head()
    for key in ("ro-1", "ro-1", None):
        extra = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
        answer = api.post("/api/tables/R1/rounds", {}, format="json", **extra)
        assert answer.status_code == 409, answer.json()
        assert answer.json()["field"] == "table" and f"gaming day {late} is closed" in answer.json()["detail"]
    assert _figures(late) == figures
    assert store.head() == head


def test_reversing_an_earlier_days_coup_does_not_land_on_a_closed_today(two_days):
    early, later = two_days
    table_open(code="R1", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={})
    patron = make_patron(100_000)
    coup = _play_coup(patron)
    _close_and_count(early.isoformat())
    late = later()
    gaming_day_close(gaming_day=late.isoformat(), actor="pit1")
    figures, head = _figures(late), store.head()
    try:
        round_reverse(round_id=coup, reason="wrong number", approver="super1", actor="pit1")
    except StateConflict:
        pass
    assert _figures(late) == figures
    assert store.head() == head


def test_reversing_an_earlier_days_fill_does_not_land_on_a_closed_today(two_days):
    early, later = two_days
    table_open(code="R1", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={})
    serial = _deliver_fill()
    late = later()
    gaming_day_close(gaming_day=late.isoformat(), actor="pit1")
    figures, head = _figures(late), store.head()
    from cashier.services.slips import slip_reverse

    try:
        slip_reverse(kind="fill", serial=serial, reason="x", approver="super1", actor="pit1")
    except StateConflict:
        pass
    assert _figures(late) == figures
    assert store.head() == head


def test_a_coup_spanning_into_a_closed_day_moves_no_money_on_it(two_days):
    """The ledger refuses any posting on a closed day (ledger.store.append): the bet is a 409;
    closing the betting and recording the number move no money and may still be recorded."""
    early, later = two_days
    table_open(code="R1", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={})
    patron = make_patron(100_000)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    late = later()
    gaming_day_close(gaming_day=late.isoformat(), actor="pit1")
    figures, head = _figures(late), store.head()
    with pytest.raises(StateConflict, match=rf"gaming day {late} is closed: no money moves on it") as refused:
        bet_place(round_id=coup, patron=patron, stake_cents=10_000, bet=PAIR, actor=ACTOR)
    assert (refused.value.field, refused.value.status, store.head()) == ("gaming_day", 409, head)
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=2, actor=ACTOR)
    assert _figures(late) == figures
    assert not Posting.objects.filter(event__position__gt=head[0]).exists()


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
    figures, head = _figures(late), store.head()
    with pytest.raises(StateConflict, match=f"gaming day {late} is closed"):
        round_reverse(round_id=coup, reason="wrong number", approver="super1", actor="pit1")
    assert _figures(late) == figures
    assert store.head() == head


# --- 1c. concurrent close vs table open / reversal (PostgreSQL, real commits) ----------------------


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


# --- 2. refused bets retried with an Idempotency-Key ------------------------------------------------


@pytest.fixture
def round_id(api, table) -> str:
    response = api.post("/api/tables/R1/rounds", {}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["round"]


def _over(api, round_id, patron, key=None, stake=20_000):
    body = {"patron": patron, "stake_cents": stake, "chips": "colour", "bet": PLEIN_17}
    extra = {} if key is None else {"HTTP_IDEMPOTENCY_KEY": key}
    return api.post(f"/api/rounds/{round_id}/bets", body, format="json", **extra)


@pytest.mark.parametrize(
    "key",
    ["k" * 200, "clé-🎰-\u2028-\"'\\", "   ", "\t", "ｋｅｙ", "a\u0301", "\U0010ffff"],
    ids=["200", "unicode", "spaces", "tab", "fullwidth", "combining", "max-codepoint"],
)
def test_odd_keys_are_recorded_once(api, round_id, colour_patron, key):
    answers = [_over(api, round_id, colour_patron, key) for _ in range(3)]
    assert [a.status_code for a in answers] == [400] * 3, [a.content for a in answers]
    assert list(BetRefusal.objects.values_list("idempotency_key", flat=True)) == [key]


_ON_POSTGRES = os.environ.get("DATABASE_URL", "").startswith("postgres")


@pytest.mark.parametrize(
    "key",
    [
        "k" * 201,
        "a\x00b",  # was a 500 on PostgreSQL (ledger/commands.py checked the length only)
    ],
    ids=["201", "nul"],
)
def test_keys_the_ledger_refuses_are_400_never_500_and_never_kept(api, round_id, colour_patron, key):
    answers = [_over(api, round_id, colour_patron, key) for _ in range(2)]
    assert [a.status_code for a in answers] == [400] * 2, [a.content for a in answers]
    assert not BetRefusal.objects.exclude(idempotency_key=None).exists()


def test_a_refused_key_later_used_for_a_successful_bet(api, round_id, colour_patron):
    assert _over(api, round_id, colour_patron, "later-ok").status_code == 400
    ok = _over(api, round_id, colour_patron, "later-ok", stake=1_000)
    assert ok.status_code == 201, ok.json()
    again = _over(api, round_id, colour_patron, "later-ok", stake=1_000)
    assert again.status_code == 201 and again.json() == ok.json()
    # the refused request retried now: the key belongs to another request
    retry = _over(api, round_id, colour_patron, "later-ok")
    assert retry.status_code in (400, 409, 422), retry.json()
    assert BetRefusal.objects.count() == 1


def test_a_reused_key_on_a_different_refused_bet_is_not_swallowed(api, round_id, colour_patron):
    assert _over(api, round_id, colour_patron, "reused").status_code == 400
    assert _over(api, round_id, colour_patron, "reused", stake=30_000).status_code in (400, 409, 422)
    # either a second row (a different refusal) or the key refused as reused: never a silent merge
    assert BetRefusal.objects.count() == 2 or _over(api, round_id, colour_patron, "reused", 30_000).status_code != 400


def test_the_same_key_from_two_senders_records_both(api, round_id, colour_patron, django_user_model):
    from ..conftest import API_TEST_ROLES, staff_user

    other = _client(staff_user("dealer2", *API_TEST_ROLES))
    assert _over(api, round_id, colour_patron, "shared").status_code == 400
    assert _over(other, round_id, colour_patron, "shared").status_code == 400
    assert sorted(BetRefusal.objects.values_list("actor", flat=True)) == ["dealer1", "dealer2"]


@pytest.mark.postgres
def test_concurrent_retries_with_one_key_record_one_row(committed_db, table, django_user_model):
    from ..conftest import API_TEST_ROLES, staff_user

    patron = make_patron(100_000)
    user = staff_user("dealer1", *API_TEST_ROLES)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    body = {"patron": patron, "stake_cents": 10_000_000, "bet": PAIR}

    def attempt():
        client = _client(user)
        answer = client.post(f"/api/rounds/{coup}/bets", body, format="json", HTTP_IDEMPOTENCY_KEY="race")
        return answer.status_code

    outcomes = run_concurrently(*[attempt] * 6)
    assert outcomes == [400] * 6, outcomes
    assert BetRefusal.objects.filter(idempotency_key="race").count() == 1
    assert BetRefusal.objects.count() == 1


# --- 3. the assembled hash ------------------------------------------------------------------------

_ENVELOPE_KEYS = st.sampled_from(
    ["data", "postings", "prev_hash", "actor", "type", "version", '"data":', "}", "\u2028", "\\", '"', "é", "\x7f"]
)
_odd_text = st.text(st.characters(codec="utf-8"), max_size=6) | _ENVELOPE_KEYS
_odd_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**200), max_value=2**200) | _odd_text,
    lambda c: st.lists(c, max_size=3) | st.tuples(c, c) | st.dictionaries(_odd_text, c, max_size=4),
    max_leaves=15,
)


def _reference(fields: dict) -> str:
    document = {
        **{k: v for k, v in fields.items() if k != "postings"},
        "occurred_at": iso_utc(fields["occurred_at"]),
        "recorded_at": iso_utc(fields["recorded_at"]),
        "gaming_day": fields["gaming_day"].isoformat(),
        "postings": sorted([list(p) for p in fields["postings"]]),
    }
    return hashlib.sha256(canonical_json(document).encode()).hexdigest()


@settings(max_examples=300, deadline=None)
@given(data=_odd_values, stream=_odd_text, key=st.none() | _odd_text)
def test_envelope_looking_data_hashes_as_the_document(data, stream, key):
    from datetime import UTC, datetime

    moment = datetime(2026, 11, 30, 5, 0, tzinfo=UTC)
    fields = dict(
        position=2**62, stream=stream, version=1, type="T", schema_version=1, data=data, occurred_at=moment,
        recorded_at=moment, gaming_day=date(2026, 11, 29), actor="a", correlation_id="", causation_id="",
        idempotency_key=key, prev_hash="0" * 64, postings=[("b", -(2**63), "EUR"), ("a", 2**63, "EUR")],
    )  # fmt: skip
    try:
        expected = _reference(fields)
    except UnicodeEncodeError:
        return
    assert event_hash_and_data(**fields)[0] == expected


ODD_DATA = [
    {"data": {"data": 1}, "postings": [["x", 1, "EUR"]], "prev_hash": "0" * 64},
    {"\u2028": "\u2029", "q": 'a"b\\c/d', "ctl": "\x01\x1f\x7f", "é": "ü", "🎰": "\U0001f3b0"},
    {"big": 2**80, "neg": -(2**80), "max": 2**63 - 1, "min": -(2**63), "over": 2**63, "deep": [[[[{"a": []}]]]]},
    {"": "", " ": " ", "a b": None, "true": True, "1": 1, "-0": 0, "1e5": "1e5"},
    {"\ud7ff": 1, "\ue000": 2, "\uffff": 3, "\U00010000": 4},  # UTF-16 and code point orders differ
    {"k": "x" * 10_000},
    {"t": (1, 2, (3,))},
]


@pytest.mark.parametrize("data", ODD_DATA, ids=[str(i) for i in range(len(ODD_DATA))])
def test_store_append_of_odd_data_verifies(data):
    from django.db import transaction

    with transaction.atomic():
        store.append(stream="breaker/odd", expected_version=0, events=[NewEvent("Odd", data)], actor=ACTOR)
    with transaction.atomic():  # two events: the COPY path on PostgreSQL
        store.append(
            stream="breaker/odd",
            expected_version=1,
            events=[
                NewEvent("Odd", data, postings=[Leg("a", 1, "EUR"), Leg("b", -1, "EUR")]),
                NewEvent("Odd", {"wrap": data}),
            ],
            actor=ACTOR,
            idempotency_key="clé \u2028 \"'\\",
        )
    result = verify_chain()
    assert result.ok, result
    stored = list(Event.objects.filter(stream="breaker/odd").order_by("position").values_list("data", flat=True))
    normal = canonical_json(data)
    assert [canonical_json(d) for d in stored] == [normal, normal, canonical_json({"wrap": data})]


# --- 4. identity endpoints ------------------------------------------------------------------------


@pytest.mark.parametrize("code", ["P999999", "nobody", "P%00", "%C3%A9", "x" * 300])
def test_identity_of_an_unknown_patron_is_404(django_user_model, cage, code):
    from ..conftest import staff_user

    client = _client(staff_user("comp1", "cashier", "cage_supervisor"))
    url = f"/api/patrons/{code}/identity"
    for key in ("id-1", "id-1", None):
        extra = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
        answer = client.post(url, {"document": "ID-1", "name": "X"}, format="json", **extra)
        assert answer.status_code == 404, (code, answer.status_code, answer.content)
        assert answer.json()["error"] == "not_found", answer.json()


def test_one_key_on_two_tables_endpoints_records_two_refusals():
    from games.services.refusals import bet_refusal_record
    from ledger.errors import BetRefused

    first = BetRefused("over", kind="table_maximum", stake_cents=20_000, table="R1", round_id=None, patron="P1")
    second = BetRefused("over", kind="table_minimum", stake_cents=10, table="B1", round_id=None, patron="P2")
    assert bet_refusal_record(first, actor="dealer1", idempotency_key="k")["retry"] is False
    summary = bet_refusal_record(second, actor="dealer2", idempotency_key="k")
    assert summary["table"] == "B1" and summary["retry"] is False, summary


def test_cage_purchase_after_the_close_leaves_the_closed_days_figures(closed_day):
    from cashier.services.cage import chips_purchase

    day = closed_day["day"]
    buyer = make_patron()  # registering moves no money: recorded on the closed day
    figures, head = _figures(day), store.head()
    with pytest.raises(StateConflict, match="no money moves on it"):
        chips_purchase(patron=buyer, amount_cents=5_000, actor=ACTOR)
    assert _figures(day)[:2] == figures[:2]  # the table games report and variances do not move
    assert _figures(day)[2] == figures[2]
    assert store.head() == head
