"""An event INSERTed around the application (no seal, or a seal of the forger's making) is left
out of every read once a page is asked for: the tronc's balance and its share-out report, the
projections' balances; the chain's keepers (``Event.chain``: verify, the store's head) still see
it, so the next genuine event chains after it and ``ledger verify`` names it."""

import io

import pytest
from celery.signals import task_prerun
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.test import Client

from cashier.services.tronc import SHARES_STREAM
from cashier.tronc_reports import tronc_shares
from ledger import accounts, disowned, projections, seal_scan, store
from ledger.models import AccountBalance, Event
from ledger.store import Leg, NewEvent
from ledger.verify import verify_chain
from tests.integration.forgery import forge

pytestmark = pytest.mark.django_db

FORGED_CENTS = 500_000


def _forged_share_out(**seal) -> int:
    data = {
        "shares": [{"username": "cashier2", "points": 1, "share_cents": FORGED_CENTS}],
        "shared_cents": FORGED_CENTS,
    }
    legs = [(accounts.TRONC, -FORGED_CENTS, "EUR"), (accounts.EXTERNAL_CASH, FORGED_CENTS, "EUR")]
    return forge("TroncShared", data, SHARES_STREAM, legs=legs, **seal)


def _a_page_is_read() -> None:
    assert Client().get("/api/auth/login/").status_code == 200


@pytest.mark.parametrize("seal", [None, "ab" * 32], ids=["no seal", "a seal of the forger's making"])
def test_a_forged_share_out_is_in_neither_the_tronc_balance_nor_the_share_out_report(cage, seal):
    tronc_before = store.balance(accounts.TRONC)
    position = _forged_share_out(seal=seal)
    day = Event.chain.get(position=position).gaming_day
    assert store.balance(accounts.TRONC) == tronc_before - FORGED_CENTS  # before anyone looked

    _a_page_is_read()

    assert disowned.positions() == {position}
    assert store.balance(accounts.TRONC) == tronc_before
    assert not Event.objects.filter(position=position).exists()
    assert Event.chain.filter(position=position).exists()
    assert [row["username"] for row in tronc_shares(day)["rows"]] == []
    result = verify_chain()
    assert (result.ok, result.first_bad_position) == (False, position)


def _projected(account: str) -> int:
    rows = AccountBalance.objects.filter(account=account, currency="EUR").values_list("balance_cents", flat=True)
    return rows.first() or 0


def test_the_projections_never_fold_in_a_forged_event(cage):
    projections.catch_up_all()
    tronc, cash = _projected(accounts.TRONC), _projected(accounts.EXTERNAL_CASH)
    _forged_share_out()
    projections.catch_up_all()
    assert (_projected(accounts.TRONC), _projected(accounts.EXTERNAL_CASH)) == (tronc, cash)
    assert store.balance(accounts.TRONC) == tronc


def test_the_next_genuine_event_chains_after_a_forged_one_and_is_read(cage):
    forged = _forged_share_out()
    _a_page_is_read()
    stream = "test/after-a-forgery"
    legs = [Leg("test:a", 1), Leg("test:b", -1)]
    noted = NewEvent("TestNoted", {"n": 1}, legs)
    (event,) = store.append(stream=stream, expected_version=0, events=[noted], actor="pit1")
    assert event.position == forged + 1
    assert event.prev_hash == Event.chain.get(position=forged).hash
    _a_page_is_read()
    assert disowned.positions() == {forged}
    assert Event.objects.filter(position=event.position).exists()


def test_chips_a_forged_event_gives_a_patron_cannot_be_bet(table):
    from games.services.bets import bet_place
    from games.services.rounds import round_open
    from ledger.errors import InsufficientChips
    from tests.conftest import ACTOR, make_patron

    code = make_patron(0)
    chips = accounts.patron_chips(code)
    forge("ChipsPurchased", {"patron": code, "amount_cents": 444_400}, f"patron/{code}",
          legs=[(chips, 444_400, "EUR"), (accounts.EXTERNAL_CASH, -444_400, "EUR")])  # fmt: skip
    _a_page_is_read()
    coup = round_open(table="R1", actor=ACTOR)["round"]
    with pytest.raises(InsufficientChips):
        bet_place(round_id=coup, patron=code, stake_cents=100_000, bet={"type": "chance_simple", "chance": "noir"},
                  actor=ACTOR)  # fmt: skip


def test_a_forged_event_on_a_stream_neither_stops_its_next_command_nor_takes_its_version(cage):
    from tests.conftest import make_patron

    code = make_patron(0)
    stream = f"patron/{code}"
    version = store.stream_version(stream)
    forged = forge("PatronNoted", {"patron": code}, stream)
    _a_page_is_read()
    assert store.stream_version(stream) == version
    (event,) = store.append(stream=stream, expected_version=version, events=[NewEvent("TestNoted", {})], actor="pit1")
    assert (event.position, event.version) == (forged + 1, version + 2)


def test_a_stream_moved_on_by_the_application_still_refuses_a_stale_version(cage):
    from ledger.errors import VersionConflict

    stream = "test/stale"
    store.append(stream=stream, expected_version=0, events=[NewEvent("TestNoted", {})], actor="pit1")
    with pytest.raises(VersionConflict):
        store.append(stream=stream, expected_version=0, events=[NewEvent("TestNoted", {})], actor="pit1")


def test_the_projections_catch_up_past_a_forged_event(cage):
    from ledger.models import ProjectionCheckpoint

    forged = _forged_share_out()
    legs = [Leg("test:a", 1), Leg("test:b", -1)]
    store.append(stream="test/after", expected_version=0, events=[NewEvent("TestNoted", {}, legs)], actor="pit1")
    projections.catch_up_all()
    assert set(ProjectionCheckpoint.objects.values_list("position", flat=True)) == {forged + 1}
    assert _projected("test:a") == 1


def test_a_forged_event_is_recorded_once_as_a_failed_verification_not_at_every_catch_up(cage, settings):
    from ledger import checkpoints
    from ledger.models import ChainVerification

    forged = _forged_share_out()
    for _ in range(3):
        assert checkpoints.write_checkpoint() is None
    assert list(ChainVerification.objects.values_list("ok", "first_bad_position")) == [(False, forged)]


def test_every_page_of_a_logged_in_person_says_the_ledger_was_written_around(pit_boss, cage):
    assert "did not write" not in pit_boss.get("/dashboard/").content.decode()
    forged = _forged_share_out()
    page = pit_boss.get("/dashboard/").content.decode()
    assert "The ledger holds 1 event the application did not write" in page
    assert f"(position {forged})" in page
    assert "No figure on these pages counts it" in page


def test_a_forged_settlement_is_in_no_table_statistic_rating_or_audit_trail(played):
    from ledger.models import AuditEntry, PatronDayRating, TableDayStats

    code, coup = played
    stats = TableDayStats.objects.get(table="R1")
    rating = PatronDayRating.objects.get(patron=code)
    before = (stats.handle_cents, stats.bets, rating.staked_cents, rating.bets)
    data = {"table": "R1", "patron": code, "round": coup, "bet": "forged", "stake_cents": 9_999_900,
            "return_cents": 0, "house_edge": "0.027"}  # fmt: skip
    forged = forge("BetSettled", data, f"round/{coup}")
    projections.catch_up_all()
    stats.refresh_from_db()
    rating.refresh_from_db()
    assert (stats.handle_cents, stats.bets, rating.staked_cents, rating.bets) == before
    assert not AuditEntry.objects.filter(position=forged).exists()
    assert AuditEntry.objects.filter(patron=code).exists()  # his genuine coup is there
    projections.rebuild()  # the rows made again, from every event but the forged one
    stats, rating = TableDayStats.objects.get(table="R1"), PatronDayRating.objects.get(patron=code)
    assert (stats.handle_cents, stats.bets, rating.staked_cents, rating.bets) == before
    assert not AuditEntry.objects.filter(position=forged).exists()


def test_an_event_below_position_one_is_refused_and_verify_names_one_written_past_the_check(cage):
    """Every reader takes "position > N" from 0: a row at -7 would be skipped by verify and the
    seal scan yet counted by a sum of postings. The database refuses it; where a superuser
    dropped the CHECK first, verify reads from the lowest row and names it."""
    legs = [(accounts.TRONC, -FORGED_CENTS, "EUR"), (accounts.EXTERNAL_CASH, FORGED_CENTS, "EUR")]
    with pytest.raises(IntegrityError), transaction.atomic():
        forge("TroncShared", {"shared_cents": FORGED_CENTS}, SHARES_STREAM, legs=legs, position=-7)
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE ledger_event DROP CONSTRAINT ledger_event_position_positive")
    forge("TroncShared", {"shared_cents": FORGED_CENTS}, SHARES_STREAM, legs=legs, position=-7)
    result = verify_chain()
    assert (result.ok, result.first_bad_position) == (False, -7)


def test_a_command_or_task_run_before_any_page_leaves_a_forged_event_out(cage):
    """A process that serves no page (a command, a worker) scans before it reads: replay-check
    compares the models with the events the application wrote, not with a forged share-out."""
    projections.catch_up_all()
    seal_scan.forget()
    position = _forged_share_out()
    out = io.StringIO()
    call_command("ledger", "replay-check", stdout=out)
    assert out.getvalue().strip().splitlines()[-1] == "replay-check: the models match the events"
    assert disowned.positions() == {position}

    seal_scan.forget()
    task_prerun.send(sender=None, task_id="t", task=None, args=(), kwargs={})
    assert disowned.positions() == {position}


def test_a_command_right_after_a_forgery_leaves_it_out_without_waiting_for_a_page_read(cage):
    """A write is no page read: a cashier's redemption sent straight after postings were
    inserted around the application (chips for a patron) pays out nothing of them."""
    from cashier.services.cage import chips_redeem
    from ledger.errors import InsufficientChips
    from tests.conftest import ACTOR, make_patron

    code = make_patron(10_000)
    chips = accounts.patron_chips(code)
    _a_page_is_read()  # this process has looked: the forgery comes after
    forge("ChipsPurchased", {"patron": code, "amount_cents": 1_000_000}, f"patron/{code}",
          legs=[(chips, 1_000_000, "EUR"), (accounts.EXTERNAL_CASH, -1_000_000, "EUR")])  # fmt: skip
    with pytest.raises(InsufficientChips):
        chips_redeem(patron=code, amount_cents=190_000, actor=ACTOR)
    assert chips_redeem(patron=code, amount_cents=10_000, actor=ACTOR)["chips_cents"] == 0
