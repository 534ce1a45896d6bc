"""Which gaming days the demo plays on (``demo.day_start``): the demo day is yesterday's, the
live floor plays today's, at any hour and after any earlier run, so that a second
``scripts/demo.sh`` never serves a floor on a closed day. And the floor's day start kept for the
demo database only (what ``casino.settings`` reads when the environment names none)."""

from datetime import date, datetime

import pytest

from demo.day_start import DEMO_DAY_START, FLOOR_DAY_START, choose, remember_floor_start, served_day_start
from ledger.gaming_day import gaming_day_of

ZONE = "Pacific/Auckland"
TODAY, YESTERDAY = date(2026, 12, 6), date(2026, 12, 5)


def at(hour: int, minute: int = 0) -> datetime:
    from zoneinfo import ZoneInfo

    return datetime(2026, 12, 6, hour, minute, tzinfo=ZoneInfo(ZONE))


def closed(*days: date):
    return lambda day: day in days


@pytest.mark.parametrize("hour", [0, 3, 5, 6, 12, 16, 23])
def test_a_fresh_database_plays_the_demo_on_yesterday_and_the_floor_on_today(hour):
    days = choose(at(hour), closed())
    assert (days.demo_day, days.floor_day, days.why) == (YESTERDAY, TODAY, "")


@pytest.mark.parametrize("hour", [0, 3, 5, 6, 12, 16, 23])
def test_the_starts_chosen_stamp_the_chosen_days_at_every_hour(hour):
    """The day starts the script runs with really give those days (the ledger's own rule)."""
    days = choose(at(hour, 30), closed())
    assert gaming_day_of(at(hour, 30), tz_name=ZONE, start=days.demo_start) == days.demo_day
    assert gaming_day_of(at(hour, 30), tz_name=ZONE, start=days.floor_start) == days.floor_day


@pytest.mark.parametrize("hour", [2, 16])
def test_a_second_run_keeps_yesterday_closed_and_serves_today_again(hour):
    """``demo.sh --no-serve`` then ``demo.sh`` (the dead floor of before): yesterday is closed,
    nothing more is played on it, and today's floor is live."""
    days = choose(at(hour), closed(YESTERDAY))
    assert days.demo_day is None
    assert days.floor_day == TODAY
    assert days.why == "the demo day 2026-12-05 is closed already: it keeps its figures"


def test_today_closed_by_hand_leaves_no_floor_and_says_when_it_opens():
    days = choose(at(16), closed(YESTERDAY, TODAY))
    assert days.floor_day is None
    assert "today's gaming day 2026-12-06 was closed by hand: the floor opens again at midnight" in days.why


def test_in_the_last_minute_before_midnight_no_demo_day_is_played():
    """23:59 is not later than 23:59: the demo would stamp today, the floor's day, and close it."""
    days = choose(at(23, 59), closed())
    assert days.demo_day is None
    assert days.floor_day == TODAY
    assert gaming_day_of(at(23, 58), tz_name=ZONE, start=DEMO_DAY_START) == YESTERDAY


def test_the_floor_start_is_read_back_for_its_own_database_only(tmp_path):
    assert served_day_start(tmp_path, "/srv/var/casino.sqlite3") is None  # no file yet
    remember_floor_start(tmp_path, "/srv/var/casino.sqlite3")
    assert served_day_start(tmp_path, "/srv/var/casino.sqlite3") == FLOOR_DAY_START == "00:00"
    assert served_day_start(tmp_path, "test_casino") is None  # a test database keeps 06:00


def test_a_damaged_day_start_file_is_ignored(tmp_path):
    (tmp_path / "demo_day_start.json").write_text('{"database": "db", "gaming_day_start": "25:99"}')
    assert served_day_start(tmp_path, "db") is None
    (tmp_path / "demo_day_start.json").write_text("not json")
    assert served_day_start(tmp_path, "db") is None
