"""The ledger stays whole whatever happens to an append (lock, tip and savepoint in one round
trip; the postings sent before the hash chain is computed, the events after, in one pipeline;
statement-level insert checks on PostgreSQL): real processes and connections racing keep the
positions gap-free and the chain whole, one of racing appends wins and the losers write nothing,
a process killed between its postings and its events leaves nothing, an interruption there or a
duplicate idempotency key inside a longer transaction is undone and the transaction goes on, and
a MERGE behind the store cannot forge an unbalanced event or a posting on a written one.
"""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction

from ledger.errors import VersionConflict
from ledger.models import Event, Posting
from ledger.store import Leg, NewEvent, append
from ledger.verify import verify_chain
from tests.integration.concurrency import run_concurrently

ROOT = Path(__file__).resolve().parents[2]


def _events(n: int, tag: str = "") -> list[NewEvent]:
    return [NewEvent("Tested", {"i": i, "tag": tag}, [Leg("a", 100 + i), Leg("b", -100 - i)]) for i in range(n)]


def _child_env() -> dict:
    """The test database for a child process, with a broker that is never read (no eager
    projection catch-up in the child: only the append is under test)."""
    settings = connection.settings_dict
    url = (
        f"postgres://{settings['USER']}@{settings['HOST'] or '127.0.0.1'}:{settings['PORT'] or 5432}/{settings['NAME']}"
    )
    return {
        **os.environ,
        "DATABASE_URL": url,
        "DJANGO_SETTINGS_MODULE": "casino.settings",
        "CELERY_BROKER_URL": "memory://",
    }


def _assert_ledger_whole(expected_events: int) -> None:
    positions = list(Event.objects.order_by("position").values_list("position", flat=True))
    assert positions == list(range(1, expected_events + 1))
    # every event has exactly its two postings: no orphan posting of a refused or killed append
    assert Posting.objects.count() == 2 * expected_events
    assert not Posting.objects.exclude(event_id__in=positions).exists()
    result = verify_chain()
    assert (result.ok, result.checked) == (True, expected_events)


@pytest.fixture
def postgresql(db):
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's write path (pipeline, statement-level checks)")


# --- real processes appending at once ------------------------------------------------------

APPENDER = """
import sys
import django
django.setup()
from django.db import transaction
from ledger.commands import ledger_command
from ledger.store import Leg, NewEvent, append, stream_version
worker, rounds = sys.argv[1], int(sys.argv[2])
for r in range(rounds):
    size = (1, 2, 7)[r % 3]
    events = [NewEvent("Tested", {"w": worker, "r": r, "i": i}, [Leg("a", 1 + i), Leg("b", -1 - i)])
              for i in range(size)]
    stream = f"proc/{worker}" if r % 2 else "proc/shared"
    for _ in range(200):
        try:
            if r % 4 < 2:  # a command: the lock first, then the append that does not ask again
                with ledger_command(actor=f"w{worker}", request={"w": worker, "r": r}) as cmd:
                    cmd.append(stream=stream, expected_version=stream_version(stream), events=events)
            else:  # a bare append: the lock in the same round trip as the tip
                with transaction.atomic():
                    append(stream=stream, expected_version=stream_version(stream), events=events, actor=f"w{worker}")
            break
        except Exception as exc:  # a version conflict on the shared stream: read again and retry
            if type(exc).__name__ != "VersionConflict":
                raise
print("done")
"""


@pytest.mark.postgres
def test_four_processes_appending_at_once_keep_positions_gap_free_and_the_chain_whole(committed_db):
    rounds = 12
    children = [
        subprocess.Popen(
            [sys.executable, "-c", APPENDER, str(w), str(rounds)],
            cwd=ROOT,
            env=_child_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for w in range(4)
    ]
    for child in children:
        out, err = child.communicate(timeout=240)
        assert child.returncode == 0 and out.decode().strip() == "done", err.decode()[-2000:]
    per_worker = sum((1, 2, 7)[r % 3] for r in range(rounds))
    _assert_ledger_whole(4 * per_worker)
    for stream in ["proc/shared"] + [f"proc/{w}" for w in range(4)]:
        versions = list(Event.objects.filter(stream=stream).order_by("position").values_list("version", flat=True))
        assert versions == list(range(1, len(versions) + 1))


@pytest.mark.postgres
@pytest.mark.parametrize("sizes", [(1, 1, 1, 1), (2, 2, 2, 2), (1, 2, 50, 600)])
def test_appends_racing_on_one_stream_one_wins_and_the_losers_write_nothing(committed_db, sizes):
    def call(size):
        def run():
            with transaction.atomic():
                return append(stream="race/one", expected_version=0, events=_events(size, str(size)), actor="t")

        return run

    outcomes = run_concurrently(*(call(size) for size in sizes))
    winners = [o for o in outcomes if isinstance(o, list)]
    assert len(winners) == 1, outcomes
    assert all(isinstance(o, VersionConflict) for o in outcomes if not isinstance(o, list)), outcomes
    _assert_ledger_whole(len(winners[0]))


# --- a process killed between its postings and its events ------------------------------------

KILL_MID_APPEND = """
import os, signal
import django
django.setup()
from django.db import transaction
from ledger import store
from ledger.store import Leg, NewEvent, append
real, hashed = store.event_hash_and_data, []
def hash_then_die(**fields):
    hashed.append(fields)
    if len(hashed) == 300:  # the 1,200 postings' COPY is open and mostly sent, no event yet
        os.kill(os.getpid(), signal.SIGKILL)
    return real(**fields)
store.event_hash_and_data = hash_then_die
events = [NewEvent("Tested", {"i": i}, [Leg("a", 1 + i), Leg("b", -1 - i)]) for i in range(600)]
with transaction.atomic():
    append(stream="killed/1", expected_version=1, events=events, actor="killed")
"""


@pytest.mark.postgres
def test_a_process_killed_between_its_postings_and_its_events_leaves_nothing(committed_db):
    with transaction.atomic():
        append(stream="killed/1", expected_version=0, events=_events(1), actor="t")
    child = subprocess.run(
        [sys.executable, "-c", KILL_MID_APPEND], cwd=ROOT, env=_child_env(), capture_output=True, timeout=120
    )
    assert child.returncode == -signal.SIGKILL, child.stderr.decode()[-2000:]
    _assert_ledger_whole(1)
    # the writer lock went with the dead connection: the next append goes through at once
    with transaction.atomic():
        saved = append(stream="killed/1", expected_version=1, events=_events(600), actor="t")
    assert saved[0].position == 2
    _assert_ledger_whole(601)


# --- interrupted or refused in the middle of a longer transaction -------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("size", [2, 50, 600])
def test_a_duplicate_key_at_batch_size_writes_nothing_and_the_caller_can_go_on(size):
    with transaction.atomic():
        append(stream="t/a", expected_version=0, events=_events(1), actor="t", idempotency_key="k")
        with pytest.raises(IntegrityError):
            append(stream="t/b", expected_version=0, events=_events(size), actor="t", idempotency_key="k")
        saved = append(stream="t/b", expected_version=0, events=_events(size), actor="t", idempotency_key="k2")
    assert [e.position for e in saved] == list(range(2, size + 2))
    assert Event.objects.get(idempotency_key="k2").position == 2
    _assert_ledger_whole(size + 1)


@pytest.mark.postgres
@pytest.mark.parametrize("size", [50, 600])  # one pipeline; COPY
def test_an_interruption_between_the_postings_and_the_events_is_undone_and_the_transaction_stays_usable(
    postgresql, monkeypatch, size
):
    """KeyboardInterrupt (or a worker's SystemExit) while the chain is computed, the postings
    already sent: the pipeline is closed, the savepoint undoes the postings, and a caller that
    catches it can keep appending in the same transaction."""
    from ledger import store

    real, hashed = store.event_hash_and_data, []

    def interrupted(**fields):
        hashed.append(fields)
        if len(hashed) == size // 2:  # the postings sent, half the events hashed
            raise KeyboardInterrupt
        return real(**fields)

    with transaction.atomic():
        append(stream="t/a", expected_version=0, events=_events(1), actor="t")
        monkeypatch.setattr(store, "event_hash_and_data", interrupted)
        with pytest.raises(KeyboardInterrupt):
            append(stream="t/b", expected_version=0, events=_events(size), actor="t")
        monkeypatch.setattr(store, "event_hash_and_data", real)
        saved = append(stream="t/b", expected_version=0, events=_events(size), actor="t")
    assert saved[0].position == 2
    _assert_ledger_whole(size + 1)


# --- forged inserts behind the store (PostgreSQL: statement-level checks) ---------------------

EVENT_COLUMNS = (
    "position, stream, version, type, schema_version, data, occurred_at, recorded_at, gaming_day, actor,"
    " correlation_id, causation_id, prev_hash, hash"
)


def _event_values(position: int) -> str:
    return (
        f"({position}, 'f/{position}', 1, 'Forged', 1, '{{}}', now(), now(), current_date, 'x', '', '', 'p',"
        f" 'h{position}')"
    )


@pytest.mark.postgres
def test_merge_cannot_forge_an_unbalanced_event_or_a_posting_on_a_written_event(postgresql):
    """MERGE (PostgreSQL 15) inserts rows too: the statement triggers see them in their
    transition table like an INSERT's or a COPY's."""
    with transaction.atomic():
        (written,) = append(stream="t/w", expected_version=0, events=_events(1), actor="t")
    with pytest.raises(DatabaseError, match="sum to zero"):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "MERGE INTO ledger_posting t USING (VALUES (9, 'a', 100, 'EUR'), (9, 'b', -99, 'EUR')) AS s(e, a, c, u)"
                " ON false WHEN NOT MATCHED THEN INSERT (event_id, account, amount_cents, currency)"
                " VALUES (s.e, s.a, s.c, s.u)"
            )
            cursor.execute(
                f"MERGE INTO ledger_event t USING (VALUES (1)) AS s(x) ON false WHEN NOT MATCHED THEN"
                f" INSERT ({EVENT_COLUMNS}) VALUES {_event_values(9)}"
            )
    with pytest.raises(DatabaseError, match="already written"):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "MERGE INTO ledger_posting t USING (VALUES (%s, 'c', 1, 'EUR'), (10, 'c', 1, 'EUR')) AS s(e, a, c, u)"
                " ON false WHEN NOT MATCHED THEN INSERT (event_id, account, amount_cents, currency)"
                " VALUES (s.e, s.a, s.c, s.u)",
                [written.position],
            )
    _assert_ledger_whole(1)
