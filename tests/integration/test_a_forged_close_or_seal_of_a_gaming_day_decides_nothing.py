"""Whether a gaming day is closed, and which days are sealed, are read from the ledger: a
``GamingDayClosed`` on the day's stream stops every append stamped with that day, and the
latest ``GamingDaySealed`` of a later day forbids sealing an earlier one. Someone holding the
application's database credentials, but not ``SECRET_KEY``, can INSERT either with a correct
hash; it lacks the application's seal (``ledger.event_seals``), so it must close nothing (one
row would otherwise stop the whole floor) and seal nothing (it would otherwise forbid the real
close's seal), as it grants no dealer authority.
"""

from datetime import timedelta

import pytest

from ledger import store
from ledger.closed_days import gaming_day_closed
from ledger.gaming_day import current_gaming_day, gaming_day_stream
from ledger.seal import SEAL_EVENT, latest_seal, seal_gaming_day
from ledger.store import NewEvent, closed_gaming_days
from tests.integration.forgery import forge

pytestmark = pytest.mark.django_db


def _some_event() -> None:
    store.append(stream="t/floor", expected_version=store.stream_version("t/floor"), actor="tester",
                 events=[NewEvent("Tested", {"i": 1})])  # fmt: skip


def test_a_forged_close_of_today_stops_nothing():
    _some_event()
    today = current_gaming_day()
    forge("GamingDayClosed", {"day": today.isoformat()}, gaming_day_stream(today))
    assert closed_gaming_days({today}) == set()
    assert gaming_day_closed(today) is None
    _some_event()  # not refused as stamped with a closed day


def test_a_forged_seal_of_a_later_day_neither_counts_nor_forbids_sealing_today():
    _some_event()
    today = current_gaming_day()
    later = (today + timedelta(days=3650)).isoformat()
    forged = {"day": later, "first_position": 1, "last_position": 10**9, "last_hash": "0" * 64, "signature": "x"}
    forge(SEAL_EVENT, forged, f"seal/{later}")
    assert latest_seal(before=today + timedelta(days=3651)) is None
    sealed = seal_gaming_day(day=today, actor="tester")
    assert sealed["day"] == today.isoformat()
