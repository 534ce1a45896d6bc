"""What every section of the benchmark suite shares: the result row, timing, the database.

A :class:`Figure` is one line of the results table: what was measured, its value, the baseline
measured in the same run (so the ratio holds when the machine is noisy) and the issue's target.
"""

import os
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

PG_ADMIN = "host=127.0.0.1 port=5432 user=postgres dbname=postgres"


@dataclass
class Figure:
    """One measured figure. ``ratio`` = value / the baseline named by ``versus`` (higher is better
    for rates); ``met`` is None when the issue sets no target ("write the figures down")."""

    section: str
    what: str
    value: float
    unit: str
    baselines: dict[str, float] = field(default_factory=dict)
    versus: str = ""
    ratio: float | None = None
    target: str = ""
    met: bool | None = None
    notes: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


def compare(figure: Figure, versus: str, minimum_ratio: float | None) -> Figure:
    """Fill ``ratio`` against ``figure.baselines[versus]`` and ``met`` against ``minimum_ratio``."""
    base = figure.baselines.get(versus)
    if base:
        figure.versus = versus
        figure.ratio = figure.value / base
        if minimum_ratio is not None:
            figure.met = figure.ratio >= minimum_ratio
    return figure


def interleaved(contenders: dict[str, Callable[[], tuple[int, float]]], rounds: int) -> dict[str, float]:
    """Run each contender ``rounds`` times, round-robin, and return its median rate (units/s).

    Each contender returns ``(units, seconds)``. Interleaving spreads a burst of load from the
    other people on the machine over all contenders instead of one.
    """
    rates: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, run in contenders.items():
            units, seconds = run()
            rates[name].append(units / seconds)
    return {name: statistics.median(values) for name, values in rates.items()}


def timed(run: Callable[[], object]) -> tuple[object, float]:
    started = time.perf_counter()
    result = run()
    return result, time.perf_counter() - started


def database_url(name: str) -> str:
    return f"postgres://postgres@127.0.0.1:5432/{name}"


def recreate_database(name: str) -> None:
    """Drop and create the benchmark database ``name`` (refuses names without 'bench')."""
    import psycopg

    if "bench" not in name:
        raise SystemExit(f"refusing to drop {name!r}: the benchmark database's name must contain 'bench'")
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def raw_connection():
    """A plain psycopg connection to the benchmark database (Django's settings name it)."""
    import psycopg
    from django.db import connection

    params = connection.get_connection_params()
    return psycopg.connect(
        host=params.get("host") or "127.0.0.1",
        port=params.get("port") or 5432,
        user=params.get("user") or "postgres",
        dbname=params["dbname"],
    )


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def env_int(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


def django_on(database: str) -> None:
    """Point Django at the benchmark database ``database`` with no Celery broker, set it up, and
    switch projection tasks off for the process (no Celery here: projections are not measured)."""
    os.environ["DATABASE_URL"] = database_url(database)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    os.environ["CELERY_BROKER_URL"] = ""
    import django

    django.setup()
    from ledger import commands

    commands._schedule_projections = lambda: None


def roulette_table_with_patrons(
    *,
    patrons: int,
    chips_cents: int,
    name: str,
    document: str,
    actor: str = "bench",
    section: str = "",
    table: str = "RB",
) -> list[str]:
    """On a migrated benchmark database (Django set up): the cage open (or left open by an
    earlier section) with a cashier shift, roulette table ``table`` open, and ``patrons``
    identified patrons each holding ``chips_cents`` of chips, named ``f"{name} {i}"`` with
    document ``f"{document}{i}"``. ``section`` prefixes the log line. Returns the patrons'
    codes, in order."""
    from django.test import override_settings

    from cashier.services.cage import cage_open, chips_purchase
    from games.services.tables import table_open
    from ledger.errors import StateConflict
    from patrons.services.patrons import patron_register
    from tests.benchmarks.suite_ledger import ensure_cage_shift

    log(f"{section}set-up: cage, table {table}, {patrons:,} patrons with chips")
    try:
        cage_open(cash_cents=10**11, chips_cents=10**11, actor=actor)
    except StateConflict:
        pass  # an earlier section of the same run opened it
    ensure_cage_shift()
    # The set-up's huge tray is no one's request: no cage supervisor's second signature here.
    with override_settings(CASINO_LARGE_OPENER_CENTS=10**10):
        table_open(code=table, game="english_roulette", opener_cents=10**10, actor=actor, rules={})
    codes = []
    for p in range(patrons):
        code = patron_register(kind="identified", name=f"{name} {p}", document=f"{document}{p}", actor=actor)
        chips_purchase(patron=code["patron"], amount_cents=chips_cents, actor=actor)
        codes.append(code["patron"])
    return codes
