"""A live-dealer betting window over HTTP: ``patrons`` × 3 bets sent to
``POST /api/rounds/<id>/bet-batches`` through gunicorn, then the spin settled.

Set-up (not timed): a roulette table, ``patrons`` identified patrons with chips, a coup in
betting, a dealer's session. The window: every bet (an even chance of 10 EUR: rouge, impair,
manque) goes in batches of ``BATCH`` bets, each batch holding one bet of ``BATCH`` different
patrons (bet j is patron j mod N's, as remote bets arrive mixed), sent once each by
``tests.benchmarks.loadgen`` in a second process over as many connections as gunicorn has
workers. Timed: from the first batch sent to the last answer, every bet checked (accepted
or refused) and committed. Then rien ne va plus and ``round_record_result`` in this process,
timed, its rows written against a raw COPY of the same rows in the same run (as the
``spin`` section).
"""

import os

from .common import Figure, compare, log, timed

SECTION = "bet window"
BATCH = 1_000
WINDOW_TARGET_SECONDS = 10.0  # 30,000 bets: the figure, ≥ 3,000 bets/s
FULL_BETS = 30_000
SPIN_BETS = tuple({"type": "chance_simple", "chance": c} for c in ("rouge", "impair", "manque"))
STAKE_CENTS = 1_000


def _set_up(patrons: int) -> list[str]:
    """Table RW open and ``patrons`` patrons holding 100 EUR of chips each: their codes."""
    from django.test import override_settings

    from cashier.services.cage import cage_open, chips_purchase
    from games.services.tables import table_open
    from ledger.errors import StateConflict
    from patrons.services.patrons import patron_register

    from .suite_ledger import ensure_cage_shift, no_projection_tasks

    actor = "bench"
    with no_projection_tasks():
        try:
            cage_open(cash_cents=10**11, chips_cents=10**11, actor=actor)
        except StateConflict:
            pass  # an earlier section opened it
        ensure_cage_shift()
        with override_settings(CASINO_LARGE_OPENER_CENTS=10**10):  # the set-up's tray: no second signature
            table_open(code="RW", game="english_roulette", opener_cents=10**10, actor=actor, rules={})
        codes = []
        for p in range(patrons):
            code = patron_register(kind="identified", name=f"Window {p}", document=f"BENCH-W{p}", actor=actor)["patron"]
            chips_purchase(patron=code, amount_cents=10_000, actor=actor)
            codes.append(code)
            if (p + 1) % 2_000 == 0:
                log(f"bet window: set-up: {p + 1:,} patrons")
    return codes


def _coup() -> str:
    from games.services.rounds import round_open

    from .suite_ledger import no_projection_tasks

    with no_projection_tasks():
        return round_open(table="RW", actor="bench")["round"]


def batches_of(codes: list[str], batch: int = BATCH) -> list[dict]:
    """The window's request bodies: bet j is patron ``j mod N``'s ``j div N``-th chance, so a
    batch holds ``batch`` different patrons and a patron's three bets go in three batches."""
    chances = list(SPIN_BETS)
    bets = [
        {"patron": codes[j % len(codes)], "stake_cents": STAKE_CENTS, "bet": chances[j // len(codes)], "key": f"w{j}"}
        for j in range(len(codes) * len(chances))
    ]
    return [{"bets": bets[i : i + batch]} for i in range(0, len(bets), batch)]


def bench_bet_window(*, patrons: int, workers: int | None, database: str) -> list[Figure]:
    from games.models import Bet
    from games.services.rounds import round_close_bets, round_record_result, round_void
    from ledger.models import Event, Posting

    from .suite_api import _checkpoint, _load, dealer_session, gunicorn_serving
    from .suite_ledger import _copy_same_rows, no_projection_tasks

    log(f"bet window: set-up: table RW, {patrons:,} patrons with chips")
    codes = _set_up(patrons)
    headers = dealer_session()
    bodies = batches_of(codes)
    total = sum(len(b["bets"]) for b in bodies)
    workers = workers or (os.cpu_count() or 1) + 1
    with gunicorn_serving(database, workers) as (port, _server):
        spec = {"host": "127.0.0.1", "port": port, "headers": headers, "seconds": 0, "rate": None}
        # Warm-up on a coup of its own, then voided (every stake back): each worker runs the
        # whole path once (imports, prepared statements, caches) before the window.
        warm = _coup()
        warm_bodies = [{"bets": b["bets"][:100]} for b in batches_of(codes[: workers * 200], 100)][: workers * 2]
        for body in warm_bodies:
            for bet in body["bets"]:
                bet["key"] = "warm-" + bet["key"]
        warmed = _load(
            {
                **spec,
                "path": f"/api/rounds/{warm}/bet-batches",
                "bodies": warm_bodies,
                "connections": workers,
                "once": True,
            }
        )
        if warmed["errors"]:
            raise RuntimeError(f"warm-up batches refused: {warmed['error_kinds']}")
        with no_projection_tasks():
            round_void(round_id=warm, reason="benchmark warm-up", actor="bench")
        coup = _coup()
        path = f"/api/rounds/{coup}/bet-batches"
        _checkpoint()  # the set-up's dirty pages written now, not during the window
        load_before = os.getloadavg()
        log(f"bet window: {total:,} bets in {len(bodies)} batches of {BATCH:,}, {workers} connections")
        window = _load(
            {
                **spec,
                "path": path,
                "bodies": bodies,
                "connections": workers,
                "once": True,
                "tally": ["accepted", "refused"],
            }
        )
    if window["errors"]:
        raise RuntimeError(f"batches refused: {window['error_kinds']}")
    accepted, refused = window["tallies"]["accepted"], window["tallies"]["refused"]
    placed = Bet.objects.filter(round_id=coup).count()
    if (accepted, refused, placed) != (total, 0, total):
        raise RuntimeError(
            f"{accepted:,} accepted, {refused:,} refused, {placed:,} bets stored of {total:,}; "
            f"first refusal: {window['first_refusal']}"
        )
    with no_projection_tasks():
        round_close_bets(round_id=coup, actor="bench")
        first = Event.objects.order_by("-position").values_list("position", flat=True).first() + 1
        log("bet window: settling")
        result, settle_seconds = timed(lambda: round_record_result(round_id=coup, number=17, actor="bench"))
    events = Event.objects.filter(position__gte=first).count()
    postings = Posting.objects.filter(event_id__gte=first).count()
    bets = result["bets_settled"]
    rows = events + postings + bets + 1  # + the round row
    copy_rate = rows / _copy_same_rows(first, coup)
    seconds = window["seconds"]
    target_seconds = WINDOW_TARGET_SECONDS * total / FULL_BETS
    window_figure = Figure(
        SECTION,
        f"accept {total:,} bets ({patrons:,} patrons × 3) in {len(bodies)} batches of {BATCH:,} over HTTP: "
        f"seconds from the first batch sent to the last answer; batch p50 {window['p50_ms']:.0f} ms, "
        f"max {window['max_ms']:.0f} ms",
        seconds,
        "s",
        target=f"≤ {target_seconds:g} s ({WINDOW_TARGET_SECONDS:g} s for {FULL_BETS:,})",
        met=seconds <= target_seconds,
        notes=f"{total / seconds:,.0f} bets/s; gunicorn {workers} sync workers, {workers} connections; "
        f"load average before {load_before[0]:.2f}",
    )
    settle_figure = Figure(
        SECTION,
        f"settle the spin: {bets:,} bets, {rows:,} rows written ({events:,} events, {postings:,} postings, "
        f"{bets:,} bets, 1 round)",
        settle_seconds,
        "s",
        target="≤ 2 s" if total >= FULL_BETS else "",
        met=settle_seconds <= 2 if total >= FULL_BETS else None,
    )
    rate_figure = Figure(
        SECTION,
        "settle: rows written per second",
        rows / settle_seconds,
        "rows/s",
        baselines={"raw COPY of the same rows": copy_rate},
        target="≥ 0.6 × the raw COPY rate",
    )
    compare(rate_figure, "raw COPY of the same rows", 0.6)
    return [window_figure, settle_figure, rate_figure]
