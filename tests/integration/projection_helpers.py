"""Helpers for the projection tests: bursts of events, snapshots, worker subprocesses."""

import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

from django.db import connection, transaction
from django.db.models import Sum

from games.rules.event_words import line as summary
from ledger.models import AccountBalance, AuditEntry, Event, PatronDayRating, Posting, TableDayStats
from ledger.store import Leg, NewEvent, append

REPO = Path(__file__).resolve().parents[2]


def burst(count: int, *, per_append: int = 500, accounts: int = 40, stream: str = "burst") -> None:
    """Append ``count`` balanced events spread over ``accounts`` accounts, quickly."""
    done = 0
    while done < count:
        size = min(per_append, count - done)
        with transaction.atomic():
            append(
                stream=f"{stream}/{done}",
                expected_version=0,
                actor="burst",
                events=[
                    NewEvent(
                        "Burst",
                        {"i": done + i, "patron": f"B{(done + i) % accounts}"},
                        [Leg(f"acct:{(done + i) % accounts}", 100 + i), Leg("acct:contra", -(100 + i))],
                    )
                    for i in range(size)
                ],
            )
        done += size


def ledger_balances(upto: int | None = None) -> dict:
    postings = Posting.objects.all() if upto is None else Posting.objects.filter(event_id__lte=upto)
    return {
        (r["account"], r["currency"]): r["total"]
        for r in postings.values("account", "currency").annotate(total=Sum("amount_cents"))
    }


def _words(lines: list[tuple]) -> dict[int, str]:
    """Each line's words, made from its event as the audit trail makes them when read."""
    positions = [line[0] for line in lines]
    events = Event.objects.filter(position__in=positions).values_list("position", "type", "data")
    return {position: summary(type_, data if isinstance(data, dict) else {}) for position, type_, data in events}


def audit_lines() -> list[tuple]:
    """The audit timelines' lines, ``(scope, key, position, words, hash)``, sorted: a row
    names up to three timelines (``AuditEntry``)."""
    rows = list(AuditEntry.objects.values_list("position", *AuditEntry.SCOPES, "hash"))
    words = _words(rows)
    return sorted(
        (scope, key, position, words[position], hash_)
        for position, *keys, hash_ in rows
        for scope, key in zip(AuditEntry.SCOPES, keys, strict=True)
        if key is not None
    )


def snapshot() -> dict:
    """Every projection's rows, comparable with ==."""
    return {
        "balances": {(b.account, b.currency): b.balance_cents for b in AccountBalance.objects.all()},
        "audit": audit_lines(),
        "table_stats": sorted(
            TableDayStats.objects.values_list(
                "table",
                "gaming_day",
                "drop_cents",
                "fills_cents",
                "credits_cents",
                "win_cents",
                "handle_cents",
                "bets",
                "coups",
                "first_coup_at",
                "last_coup_at",
                "theoretical_win",
            )
        ),
        "patrons_per_table_day": sorted(
            (t, d, tuple(sorted(p))) for t, d, p in TableDayStats.objects.values_list("table", "gaming_day", "patrons")
        ),
        "ratings": sorted(
            PatronDayRating.objects.values_list(
                "patron",
                "gaming_day",
                "bets",
                "staked_cents",
                "actual_win_cents",
                "theoretical_win",
                "first_bet_at",
                "last_bet_at",
            )
        ),
    }


def worker_env(**extra) -> dict:
    """The environment of a separate process on this test's database."""
    s = connection.settings_dict
    env = dict(os.environ, DJANGO_SETTINGS_MODULE="casino.settings")
    env["DATABASE_URL"] = f"postgres://{s['USER']}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"
    env.update(extra)
    return env


@contextmanager
def publishing_to(queue: str):
    """Tasks sent from this process go through the broker (not eager) to ``queue`` inside the
    block; after it, the run's own settings come back (eager or not, its ``CELERY_QUEUE``), not
    fixed ones: a test setting them back to eager and ``casino`` left every later test of a run
    with a broker running its tasks in the process."""
    from casino.celery import app

    eager, default_queue = app.conf.task_always_eager, app.conf.task_default_queue
    app.conf.task_always_eager, app.conf.task_default_queue = False, queue
    try:
        yield
    finally:
        app.conf.task_always_eager, app.conf.task_default_queue = eager, default_queue


def spawn(args: list[str], *, output=None, **env) -> subprocess.Popen:
    """A Python process on this test's database. Its output goes to a pipe (read it with
    ``communicate``), or to ``output``, a file: a long-lived process that nobody reads would
    block once it filled the pipe's 64 KiB."""
    return subprocess.Popen(
        [sys.executable, *args],
        cwd=REPO,
        env=worker_env(**env),
        stdout=subprocess.PIPE if output is None else output,
        stderr=subprocess.STDOUT,
        text=True,
    )


# --- the audit projection's lines -------------------------------------------------------------


def append_events(stream: str, events: list[NewEvent], **kwargs) -> list:
    """Append ``events`` as the first of ``stream``, in a transaction of their own."""
    with transaction.atomic():
        return append(stream=stream, expected_version=0, actor="t", events=events, **kwargs)


def append_audited(stream: str, patron: str = "P1") -> None:
    """Three events for the audit timelines: a purchase (patron), a buy-in (patron, table T1),
    a coup opened (round R1, table T1)."""
    append_events(
        stream,
        [
            NewEvent("ChipsPurchased", {"patron": patron, "amount_cents": 500}, [Leg("p", 500), Leg("c", -500)]),
            NewEvent("CashBuyIn", {"patron": patron, "table": "T1", "amount_cents": 200}, []),
            NewEvent("RoundOpened", {"round": "R1", "table": "T1", "number": 1}, []),
        ],
    )


def audit_rows() -> list[tuple]:
    """The audit projection's rows in position order, ``(position, patron, table, round, type, words)``."""
    rows = list(AuditEntry.objects.order_by("position").values_list("position", "patron", "table", "round", "type"))
    words = _words(rows)
    return [(*row, words[row[0]]) for row in rows]


def audit_rows_by_sql() -> list[tuple]:
    """The audit rows with their hash, read by SQL (whatever shape the model has), sorted."""
    with connection.cursor() as cursor:
        cursor.execute('SELECT position, patron, "table", round, type, hash FROM ledger_auditentry')
        return sorted(cursor.fetchall())


def audit_trail(client, scope: str, key: str) -> list[dict]:
    """The first page of ``/api/audit/<scope>/<key>/`` through ``client``, which must be a 200."""
    response = client.get(f"/api/audit/{scope}/{key}/")
    assert response.status_code == 200, response.content[:300]
    body = response.json()
    return body["results"] if isinstance(body, dict) else body
