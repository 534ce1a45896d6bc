"""The patron's self-limit (RULES.md §Baccarat): "a player may lower his own maximum
bet; he may change it once a week (reset Friday midnight US Eastern time) and it applies to
every game".

The week runs from Friday 00:00 America/New_York to the next Friday 00:00, DST-correct: 05:00
UTC under EST, 04:00 UTC under EDT. The first setting counts as that week's change; a later
change may lower or raise the limit. Time is moved by passing ``now`` to the service, or, through
the API, by patching the service's clock ``patrons.services.self_limit.now``.
"""

from datetime import UTC, datetime

import pytest

from ledger.errors import Conflict, InvalidInput, NotFound
from ledger.hashing import canonical_json
from ledger.models import Event
from ledger.verify import verify_chain
from patrons.models import SelfLimit
from patrons.services import self_limit as service
from patrons.services.patrons import patron_register
from patrons.services.self_limit import (
    NEW_YORK,
    check_self_limit,
    check_self_limits,
    next_reset_after,
    self_limit_get,
    self_limit_set,
    week_start_of,
)
from tests.conftest import ACTOR

pytestmark = pytest.mark.django_db

NAME, DOCUMENT = "Jeanne Self-Limit", "ID-SL-998877"

# A Wednesday in an EST week (Friday 2025-01-10 00:00 New York = 05:00 UTC).
WEDNESDAY = datetime(2025, 1, 15, 15, 0, tzinfo=UTC)
WEEK_START = "2025-01-10T05:00:00+00:00"
NEXT_RESET = "2025-01-17T05:00:00+00:00"


@pytest.fixture
def code() -> str:
    """An identified patron, with a name and an identity document in the registry."""
    return patron_register(kind="identified", name=NAME, document=DOCUMENT, actor=ACTOR)["patron"]


@pytest.fixture
def clock(monkeypatch):
    """Set the service's clock: ``clock(moment)``."""

    def set_clock(moment: datetime) -> None:
        monkeypatch.setattr(service, "now", lambda: moment)

    return set_clock


def ny(*args) -> datetime:
    """A New York wall-clock time."""
    return datetime(*args, tzinfo=NEW_YORK)


def url(code: str) -> str:
    return f"/api/patrons/{code}/self-limit"


# --- setting it ----------------------------------------------------------------------------


def test_first_setting_appends_self_limit_set_on_the_patron_stream(code):
    """The first setting is any positive amount; it appends SelfLimitSet {patron, max_bet_cents,
    week_start} on patron/<code> and returns the week and the next reset."""
    result = self_limit_set(patron=code, max_bet_cents=10_000, actor=ACTOR, now=WEDNESDAY)
    assert result == {
        "patron": code,
        "max_bet_cents": 10_000,
        "week_start": WEEK_START,
        "next_change_from": NEXT_RESET,
    }
    event = Event.objects.get(type="SelfLimitSet")
    assert (event.stream, event.version, event.actor) == (f"patron/{code}", 2, ACTOR)
    assert event.data == {"patron": code, "max_bet_cents": 10_000, "week_start": WEEK_START}
    assert event.occurred_at == WEDNESDAY
    limit = SelfLimit.objects.get(pk=code)
    assert (limit.max_bet_cents, limit.week_start, limit.set_at) == (
        10_000,
        datetime.fromisoformat(WEEK_START),
        WEDNESDAY,
    )
    assert verify_chain().ok
    assert check_self_limits() == []


def test_the_event_holds_no_personal_data(code, api):
    """DESIGN.md §The ledger: the event names the patron by code only, never his name or document."""
    assert api.post(url(code), {"max_bet_cents": 5_000}, format="json").status_code == 201
    event = Event.objects.get(type="SelfLimitSet")
    assert set(event.data) == {"patron", "max_bet_cents", "week_start"}
    text = canonical_json(event.data)
    for personal in (NAME, DOCUMENT, "Jeanne", "ID-SL"):
        assert personal not in text
        assert personal not in event.actor
    assert event.data["patron"] == code


def test_api_sets_the_limit_201_and_reads_it_back(code, api, clock):
    """POST → 201 with the week; GET → the limit, the next change time, and whether he may change it now."""
    clock(WEDNESDAY)
    response = api.post(url(code), {"max_bet_cents": 20_000}, format="json")
    assert response.status_code == 201, response.json()
    assert response.json() == {
        "patron": code,
        "max_bet_cents": 20_000,
        "week_start": WEEK_START,
        "next_change_from": NEXT_RESET,
    }
    response = api.get(url(code))
    assert response.status_code == 200
    assert response.json() == {
        "patron": code,
        "max_bet_cents": 20_000,
        "week_start": WEEK_START,
        "next_change_from": NEXT_RESET,
        "may_change_now": False,
    }
    clock(datetime.fromisoformat(NEXT_RESET))
    assert api.get(url(code)).json()["may_change_now"] is True


def test_get_without_a_limit_is_404(code, api):
    response = api.get(url(code))
    assert response.status_code == 404
    assert "no self-limit" in response.json()["detail"]
    assert self_limit_get(code) is None


# --- once a week ---------------------------------------------------------------------------


def test_second_change_in_the_same_week_is_409_and_appends_nothing(code, api, clock):
    """A second change in the same week is refused: 409, a message with the next reset in UTC and
    New York time, nothing appended, the limit unchanged."""
    clock(WEDNESDAY)
    assert api.post(url(code), {"max_bet_cents": 10_000}, format="json").status_code == 201
    events = Event.objects.count()
    clock(ny(2025, 1, 16, 23, 59, 59))  # Thursday, one second before the reset
    for amount in (5_000, 10_000, 50_000):  # lower, the same, higher: all refused
        response = api.post(url(code), {"max_bet_cents": amount}, format="json")
        assert response.status_code == 409, response.json()
        body = response.json()
        assert body["error"] == "conflict"
        assert "once a week" in body["detail"]
        assert "2025-01-17 05:00 UTC" in body["detail"]
        assert "2025-01-17 00:00 EST, New York" in body["detail"]
    assert Event.objects.count() == events
    assert SelfLimit.objects.get(pk=code).max_bet_cents == 10_000


def test_second_change_in_the_same_week_through_the_service_raises_conflict(code):
    self_limit_set(patron=code, max_bet_cents=10_000, actor=ACTOR, now=WEDNESDAY)
    events = Event.objects.count()
    with pytest.raises(Conflict) as refused:
        self_limit_set(patron=code, max_bet_cents=8_000, actor=ACTOR, now=datetime(2025, 1, 10, 5, 0, tzinfo=UTC))
    assert refused.value.status == 409
    assert Event.objects.count() == events


def test_change_allowed_from_the_friday_midnight_new_york_reset(code):
    """Friday 00:00 New York opens a new week: he may lower it, and in a later week raise it again
    (the sheet: he "may change it once a week")."""
    self_limit_set(patron=code, max_bet_cents=10_000, actor=ACTOR, now=ny(2025, 1, 16, 23, 59))
    with pytest.raises(Conflict):
        self_limit_set(patron=code, max_bet_cents=5_000, actor=ACTOR, now=ny(2025, 1, 16, 23, 59, 59))
    lowered = self_limit_set(patron=code, max_bet_cents=5_000, actor=ACTOR, now=ny(2025, 1, 17, 0, 0))
    assert lowered["week_start"] == "2025-01-17T05:00:00+00:00"
    assert lowered["next_change_from"] == "2025-01-24T05:00:00+00:00"
    raised = self_limit_set(patron=code, max_bet_cents=30_000, actor=ACTOR, now=ny(2025, 1, 30, 12, 0))
    assert raised["max_bet_cents"] == 30_000
    assert [e.data["max_bet_cents"] for e in Event.objects.filter(type="SelfLimitSet").order_by("position")] == [
        10_000,
        5_000,
        30_000,
    ]
    assert check_self_limits() == []


def test_change_allowed_after_the_reset_through_the_api(code, api, clock):
    clock(WEDNESDAY)
    assert api.post(url(code), {"max_bet_cents": 10_000}, format="json").status_code == 201
    clock(datetime.fromisoformat(NEXT_RESET))
    response = api.post(url(code), {"max_bet_cents": 7_500}, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["week_start"] == NEXT_RESET
    assert api.get(url(code)).json()["max_bet_cents"] == 7_500


@pytest.mark.parametrize(
    ("set_at", "week_start", "still_refused", "reset", "zone"),
    [
        # Spring forward on Sunday 2025-03-09: the week from Friday 03-07 00:00 EST (05:00 UTC)
        # ends on Friday 03-14 00:00 EDT (04:00 UTC), 167 hours later.
        (
            datetime(2025, 3, 12, 15, 0, tzinfo=UTC),
            "2025-03-07T05:00:00+00:00",
            datetime(2025, 3, 14, 3, 59, 59, tzinfo=UTC),
            "2025-03-14T04:00:00+00:00",
            "EDT",
        ),
        # Fall back on Sunday 2025-11-02: the week from Friday 10-31 00:00 EDT (04:00 UTC) ends on
        # Friday 11-07 00:00 EST (05:00 UTC), 169 hours later; 04:30 UTC (the old offset's
        # midnight has passed) is still Thursday in New York.
        (
            datetime(2025, 11, 5, 15, 0, tzinfo=UTC),
            "2025-10-31T04:00:00+00:00",
            datetime(2025, 11, 7, 4, 30, tzinfo=UTC),
            "2025-11-07T05:00:00+00:00",
            "EST",
        ),
    ],
    ids=["march-after-spring-forward", "november-after-fall-back"],
)
def test_the_reset_follows_new_york_daylight_saving_time(code, set_at, week_start, still_refused, reset, zone):
    """The Friday after a DST change resets at 00:00 New York, not at the old UTC offset: an hour
    earlier in UTC in March, an hour later in November."""
    result = self_limit_set(patron=code, max_bet_cents=10_000, actor=ACTOR, now=set_at)
    assert (result["week_start"], result["next_change_from"]) == (week_start, reset)
    events = Event.objects.count()
    with pytest.raises(Conflict) as refused:
        self_limit_set(patron=code, max_bet_cents=9_000, actor=ACTOR, now=still_refused)
    reset_at = datetime.fromisoformat(reset)
    assert f"{reset_at:%Y-%m-%d %H:%M} UTC ({reset_at:%Y-%m-%d} 00:00 {zone}, New York)" in refused.value.message
    assert Event.objects.count() == events
    later = self_limit_set(patron=code, max_bet_cents=9_000, actor=ACTOR, now=reset_at)
    assert later["week_start"] == reset
    assert reset_at.astimezone(NEW_YORK).strftime("%A %H:%M") == "Friday 00:00"


def test_week_boundaries_are_friday_midnight_new_york():
    """week_start_of / next_reset_after on either side of each 2025 DST change."""
    cases = {
        # moment (UTC): (week start, next reset)
        datetime(2025, 3, 14, 3, 59, 59, tzinfo=UTC): ("2025-03-07T05:00:00+00:00", "2025-03-14T04:00:00+00:00"),
        datetime(2025, 3, 14, 4, 0, tzinfo=UTC): ("2025-03-14T04:00:00+00:00", "2025-03-21T04:00:00+00:00"),
        datetime(2025, 11, 7, 4, 30, tzinfo=UTC): ("2025-10-31T04:00:00+00:00", "2025-11-07T05:00:00+00:00"),
        datetime(2025, 11, 7, 5, 0, tzinfo=UTC): ("2025-11-07T05:00:00+00:00", "2025-11-14T05:00:00+00:00"),
        # A Friday afternoon belongs to the week that began that morning.
        ny(2025, 6, 6, 15, 0): ("2025-06-06T04:00:00+00:00", "2025-06-13T04:00:00+00:00"),
    }
    for moment, (start, reset) in cases.items():
        week = week_start_of(moment)
        assert (week.isoformat(), next_reset_after(week).isoformat()) == (start, reset), moment


# --- the check every bet placement makes ---------------------------------------------------


def test_check_self_limit_refuses_over_and_accepts_at_the_limit(code, django_assert_num_queries):
    """At the limit passes; one cent over is refused (field stake_cents) naming the limit in EUR.
    A pure read, one query."""
    check_self_limit(code, 10**9)  # no limit set: nothing to refuse
    self_limit_set(patron=code, max_bet_cents=10_000, actor=ACTOR, now=WEDNESDAY)
    with django_assert_num_queries(1):
        check_self_limit(code, 10_000)
    with django_assert_num_queries(1), pytest.raises(InvalidInput) as refused:
        check_self_limit(code, 10_001)
    assert refused.value.field == "stake_cents"
    assert refused.value.status == 400
    assert "over patron" in refused.value.message
    assert "own limit of 100.00 EUR" in refused.value.message
    assert "responsible gaming" in refused.value.message
    check_self_limit("anon", 10**9)  # unrated play is never limited
    check_self_limit("P99999", 10**9)


# --- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize("amount", [0, -100, 100.5, 100.0, "100", True, None], ids=repr)
def test_bad_amount_is_400_on_max_bet_cents_and_appends_nothing(code, api, amount):
    events = Event.objects.count()
    response = api.post(url(code), {"max_bet_cents": amount}, format="json")
    assert response.status_code == 400, response.json()
    assert response.json()["field"] == "max_bet_cents"
    assert Event.objects.count() == events
    assert not SelfLimit.objects.exists()


def test_missing_amount_is_400(code, api):
    response = api.post(url(code), {}, format="json")
    assert response.status_code == 400
    assert response.json()["field"] == "max_bet_cents"


@pytest.mark.parametrize("amount", [0, -1, 1.5, "100", True, None, 10**12 + 1], ids=repr)
def test_service_refuses_a_bad_amount(code, amount):
    with pytest.raises(InvalidInput) as refused:
        self_limit_set(patron=code, max_bet_cents=amount, actor=ACTOR, now=WEDNESDAY)
    assert refused.value.field == "max_bet_cents"
    assert not Event.objects.filter(type="SelfLimitSet").exists()


def test_unknown_patron_is_404_on_patron(api):
    events = Event.objects.count()
    response = api.post(url("P99999"), {"max_bet_cents": 1_000}, format="json")
    assert response.status_code == 404
    assert response.json()["field"] == "patron"
    assert api.get(url("P99999")).status_code == 404
    assert Event.objects.count() == events
    with pytest.raises(NotFound):
        self_limit_set(patron="P99999", max_bet_cents=1_000, actor=ACTOR)
    with pytest.raises(NotFound):
        self_limit_get("P99999")


def test_the_anonymous_patron_cannot_set_one(api):
    """``anon`` is shared by all unrated play: a limit there would bind every anonymous player."""
    patron_register(kind="anonymous", actor=ACTOR)
    events = Event.objects.count()
    response = api.post(url("anon"), {"max_bet_cents": 1_000}, format="json")
    assert response.status_code == 400
    assert response.json()["field"] == "patron"
    assert Event.objects.count() == events


def test_a_retry_with_the_same_idempotency_key_appends_nothing(code, api, clock):
    """A retried request returns the first result (not a 409), appending nothing."""
    clock(WEDNESDAY)
    first = api.post(url(code), {"max_bet_cents": 4_000}, format="json", HTTP_IDEMPOTENCY_KEY="sl-1")
    events = Event.objects.count()
    again = api.post(url(code), {"max_bet_cents": 4_000}, format="json", HTTP_IDEMPOTENCY_KEY="sl-1")
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    assert Event.objects.count() == events


def test_the_schema_describes_the_endpoint(api):
    """POST (with an Idempotency-Key header, an integer max_bet_cents) and GET on one path."""
    schema = api.get("/api/schema/", {"format": "json"}).json()
    operations = schema["paths"]["/api/patrons/{code}/self-limit"]
    assert {"get", "post"} <= set(operations)
    assert "Idempotency-Key" in [p["name"] for p in operations["post"].get("parameters", [])]
    assert "Idempotency-Key" not in [p["name"] for p in operations["get"].get("parameters", [])]
    ref = operations["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    request = schema["components"]["schemas"][ref.rsplit("/", 1)[-1]]
    assert request["properties"]["max_bet_cents"]["type"] == "integer"


def test_a_bet_over_the_self_limit_is_refused_at_every_game(api, table):
    """The patron's own maximum applies to roulette, black jack, Caribbean stud and baccarat bets."""
    from ledger.models import Event
    from patrons.services.self_limit import self_limit_set
    from tests.conftest import make_patron

    p = make_patron(100_000)
    self_limit_set(patron=p, max_bet_cents=2_000, actor="tester")
    api.post("/api/tables/B1/open", {"game": "blackjack", "opener_cents": 1_000_000}, format="json")
    api.post("/api/tables/B1/shoes", {"mode": "shuffled"}, format="json")
    api.post("/api/tables/C1/open", {"game": "caribbean_stud", "opener_cents": 1_000_000}, format="json")
    api.post("/api/tables/P1/open", {"game": "baccarat", "opener_cents": 1_000_000}, format="json")
    api.post("/api/tables/P1/shoes", {"mode": "shuffled"}, format="json")
    rounds = {
        t: api.post(f"/api/tables/{t}/rounds", {}, format="json").json()["round"] for t in ("R1", "B1", "C1", "P1")
    }
    attempts = {
        "R1": ("bets", {"patron": p, "stake_cents": 2_500, "bet": {"type": "chance_simple", "chance": "rouge"}}),
        "B1": ("blackjack-bets", {"patron": p, "box": 1, "stake_cents": 2_500, "seated": True}),
        "C1": ("antes", {"patron": p, "box": 1, "ante_cents": 2_500}),
        "P1": ("baccarat-bets", {"patron": p, "bet": "banker", "stake_cents": 2_500}),
    }
    events = Event.objects.count()
    for table, (endpoint, body) in attempts.items():
        response = api.post(f"/api/rounds/{rounds[table]}/{endpoint}", body, format="json")
        assert response.status_code == 400, (table, response.json())
        assert response.json()["field"] == "stake_cents" and "own limit" in response.json()["detail"], table
    assert Event.objects.count() == events
    ok = api.post(
        f"/api/rounds/{rounds['P1']}/baccarat-bets", {"patron": p, "bet": "banker", "stake_cents": 2_000}, format="json"
    )
    assert ok.status_code == 201
