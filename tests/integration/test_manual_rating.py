"""A patron rated by hand at the table (no card read him): one ``PatronRatedManually`` event on
the table's stream, no money moved; refused, nothing written, for a time to come, a closed
table, a patron without a name, or someone not a pit boss."""

from datetime import timedelta
from fractions import Fraction

import pytest
from django.utils import timezone

from games.services.bets import bet_place
from games.services.ratings import patron_rating_record
from games.services.rounds import round_close_bets, round_open, round_record_result
from ledger import projections
from ledger.errors import InvalidInput, StateConflict
from ledger.models import Event, PatronDayRating, Posting
from patrons.services.patrons import patron_register
from staff.roles import RoleRequired
from tests.conftest import ACTOR, make_patron, staff_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def boss():
    staff_user("boss", "pit_boss")
    return "boss"


def rate(boss: str, patron: str, **change):
    arguments = {
        "table": "R1",
        "patron": patron,
        "time_in": timezone.now() - timedelta(minutes=50),
        "minutes": 45,
        "average_bet_cents": 2_500,
        "buy_in_cents": 50_000,
        "actor": boss,
    }
    return patron_rating_record(**(arguments | change))


def test_a_rating_by_hand_is_one_event_on_the_table_and_moves_no_money(table, boss):
    patron = make_patron()
    postings = Posting.objects.count()
    result = rate(boss, patron)
    event = Event.objects.get(position=result["event"])
    assert (event.stream, event.type, event.actor) == ("table/R1", "PatronRatedManually", "boss")
    assert (event.data["minutes"], event.data["average_bet_cents"], event.data["buy_in_cents"]) == (45, 2_500, 50_000)
    assert event.data["time_in"].endswith("+00:00")  # UTC
    assert Posting.objects.count() == postings


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"time_in": "later"}, "time_in"),
        ({"minutes": 0}, "minutes"),
        ({"average_bet_cents": 0}, "average_bet_cents"),
        ({"buy_in_cents": -1}, "buy_in_cents"),
    ],
)
def test_a_bad_rating_is_refused_naming_its_field(table, boss, change, field):
    if change.get("time_in") == "later":
        change = {"time_in": timezone.now() + timedelta(hours=1)}
    patron = make_patron()
    head = Event.objects.count()
    with pytest.raises(InvalidInput) as refused:
        rate(boss, patron, **change)
    assert refused.value.field == field and Event.objects.count() == head


def test_only_a_pit_boss_rates_a_named_patron_at_an_open_table(table, boss):
    from games.services.tables import table_close

    anonymous = patron_register(kind="anonymous", actor=ACTOR)["patron"]
    with pytest.raises(InvalidInput) as refused:
        rate(boss, anonymous)
    assert refused.value.field == "patron"
    staff_user("dealer9", "dealer")
    with pytest.raises(RoleRequired):
        rate("dealer9", make_patron())
    table_close(code="R1", actor=ACTOR)
    with pytest.raises(StateConflict):
        rate(boss, make_patron())


def test_a_rating_by_hand_folds_into_the_patrons_day_rating_like_card_read_bets(table, boss):
    """R1 is English roulette: 35 decisions an hour, the house edge 1/37 (0.027027 to six places).
    60 minutes at 25.00 EUR: 35 decisions, 875.00 EUR staked, theoretical win 875.00 × 0.027027;
    one card-read bet of 10.00 EUR on rouge (1/74) the same day adds to the same row."""
    patron = make_patron(100_000)
    time_in = timezone.now().replace(microsecond=0) - timedelta(minutes=90)
    rated = rate(boss, patron, time_in=time_in, minutes=60)
    assert (rated["decisions_per_hour"], rated["decisions"], rated["house_edge"]) == (35, 35, "0.027027")
    projections.catch_up_all()
    rating = PatronDayRating.objects.get(patron=patron)
    assert (rating.bets, rating.staked_cents, rating.actual_win_cents) == (35, 87_500, 0)
    assert Fraction(rating.theoretical_win) == 87_500 * Fraction("0.027027")
    assert (rating.first_bet_at, rating.last_bet_at) == (time_in, time_in + timedelta(minutes=60))

    coup = round_open(table="R1", actor=ACTOR)["round"]
    rouge = {"type": "chance_simple", "chance": "rouge"}
    bet_place(round_id=coup, patron=patron, stake_cents=1_000, bet=rouge, actor=ACTOR)
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=21, actor=ACTOR)
    projections.catch_up_all()
    rating.refresh_from_db()
    assert (rating.bets, rating.staked_cents, rating.actual_win_cents) == (36, 88_500, -1_000)
    assert Fraction(rating.theoretical_win) == 87_500 * Fraction("0.027027") + Fraction(1_000, 74)
    assert rating.first_bet_at == time_in and rating.last_bet_at > time_in + timedelta(minutes=60)

    fields = [f.name for f in PatronDayRating._meta.fields if f.name != "id"]
    incremental = list(PatronDayRating.objects.values(*fields))
    projections.rebuild()
    assert list(PatronDayRating.objects.values(*fields)) == incremental


def test_play_begun_on_a_closed_gaming_day_is_not_rated_into_todays(table, boss):
    """At 00:13 a "time in 23:30" once landed in the closed, sealed day before and counted in
    today's rating: play of a closed day is refused, naming it."""
    from datetime import datetime, time
    from zoneinfo import ZoneInfo

    from django.conf import settings

    from cashier.services.gaming_day import gaming_day_close
    from ledger.gaming_day import current_gaming_day

    today = current_gaming_day()
    yesterday = today - timedelta(days=1)
    gaming_day_close(gaming_day=yesterday.isoformat(), actor=boss)
    hour, minute = (int(part) for part in settings.GAMING_DAY_START.split(":"))
    zone = ZoneInfo(settings.CASINO_TIMEZONE)
    today_began = datetime.combine(today, time(hour, minute), tzinfo=zone)
    patron = make_patron()
    head = Event.objects.count()
    with pytest.raises(InvalidInput, match=f"falls on gaming day {yesterday.isoformat()}, which is closed") as refused:
        rate(boss, patron, time_in=today_began - timedelta(minutes=20), minutes=10)
    assert refused.value.field == "time_in" and Event.objects.count() == head
