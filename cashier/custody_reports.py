"""The master game report: each table's drop box of a gaming day, its removal,
its count, the verifier's recount and the count team's signatures. Cents; times UTC."""

from __future__ import annotations

import hashlib
import json
from datetime import date

from ledger.models import Event

from .reports import _envelope

COLUMNS = [
    "table",
    "removed_by",
    "expected_cents",
    "counters",
    "counted_cents",
    "count_variance_cents",
    "verifier",
    "recount",
    "recount_difference_cents",
]


def master_game_rows(day: date) -> list[dict]:
    """One row per table whose drop box of ``day`` was removed (``COLUMNS``). ``recount`` is
    "agrees", "variance" or null (not verified); a reversed count shows the live one."""
    rows: dict[str, dict] = {}
    events = Event.objects.filter(stream__startswith="drop/", stream__endswith=f"/{day.isoformat()}").order_by(
        "position"
    )
    for event in events.only("stream", "type", "data", "actor"):
        data = event.data
        table = data.get("table") or event.stream.split("/")[1]
        if event.type == "DropBoxRemoved":
            rows[table] = {
                "table": table,
                "removed_by": ";".join(data.get("removers") or [event.actor]),
                "expected_cents": data["expected_cents"],
                "counters": None,
                "counted_cents": None,
                "count_variance_cents": None,
                "verifier": None,
                "recount": None,
                "recount_difference_cents": None,
            }
            continue
        row = rows.get(table)
        if row is None:
            continue
        if event.type == "DropCounted":
            row.update(
                counters=";".join(data["counters"]),
                counted_cents=data["counted_cents"],
                count_variance_cents=data["variance_cents"],
                verifier=None,
                recount=None,
                recount_difference_cents=None,
            )
        elif event.type == "DropCountReversed":
            row.update(counters=None, counted_cents=None, count_variance_cents=None)
        elif event.type in ("DropCountVerified", "DropRecountVariance"):
            row.update(
                verifier=data["verifier"],
                recount="agrees" if event.type == "DropCountVerified" else "variance",
                recount_difference_cents=data["difference_cents"],
            )
    return [rows[code] for code in sorted(rows)]


def master_game_report(day: date) -> dict:
    """The master game report of ``day``: the rows, and ``signatures`` ``[{"signer", "at",
    "current"}]`` (current: signed the rows as they are now), ``signed_by_count_team``: two
    members or more signed the current rows."""
    rows = master_game_rows(day)
    digest = report_digest(rows)
    signatures = [
        {"signer": e.actor, "at": e.recorded_at.isoformat(), "current": e.data["digest"] == digest}
        for e in Event.objects.filter(stream=f"mastergame/{day.isoformat()}", type="MasterGameReportSigned").order_by(
            "position"
        )
    ]
    current = {s["signer"] for s in signatures if s["current"]}
    return _envelope(
        "Master game report",
        day,
        day,
        COLUMNS,
        rows,
        gaming_day=day.isoformat(),
        digest=digest,
        signatures=signatures,
        signed_by_count_team=len(current) >= 2,
    )


def report_digest(rows: list[dict]) -> str:
    """SHA-256 (hex) of the master game report's rows, as canonical JSON (sorted keys)."""
    text = json.dumps(rows, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()
