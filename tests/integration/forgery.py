"""An event INSERTed at the ledger's tail the way someone holding the application's database
credentials, but not its ``SECRET_KEY``, can: hashed exactly as the store hashes, with its
postings, and a seal column of his own making or none."""

import json

from django.db import connection

from ledger import store
from ledger.hashing import event_hash
from ledger.models import Event

COLUMNS = (
    "position, stream, version, type, schema_version, data, occurred_at, recorded_at, gaming_day, actor, "
    "correlation_id, causation_id, idempotency_key, prev_hash, hash"
)


def forge(type_: str, data: dict, stream: str, *, legs=(), seal: str | None = None, position: int | None = None) -> int:
    """The new event's position. ``legs``: ``(account, cents, currency)`` postings summing to
    zero; ``seal``: the seal column written (else the column's default, none); ``position``:
    where to write it (default: after the tail, chained to it)."""
    last = Event.chain.order_by("-position").first()
    position = last.position + 1 if position is None else position
    fields = {
        "position": position,
        "stream": stream,
        "version": store.stream_version(stream) + 1,
        "type": type_,
        "schema_version": 1,
        "data": data,
        "occurred_at": last.recorded_at,
        "recorded_at": last.recorded_at,
        "gaming_day": last.gaming_day,
        "actor": "pit1",
        "correlation_id": "",
        "causation_id": "",
        "idempotency_key": None,
        "prev_hash": last.hash,
    }
    hash_ = event_hash(**fields, postings=[tuple(leg) for leg in legs])
    values = [*fields.values(), hash_]
    values[5] = json.dumps(data)
    columns, marks = COLUMNS, ["%s"] * len(values)
    if connection.vendor == "postgresql":
        marks[5] = "CAST(%s AS jsonb)"
    if seal is not None:
        columns, marks, values = columns + ", seal", [*marks, "%s"], [*values, seal]
    with connection.cursor() as cursor:
        # Postings first, as the store writes them: the guard refuses legs added to a written event.
        for account, cents, currency in legs:
            cursor.execute(
                "INSERT INTO ledger_posting (event_id, account, amount_cents, currency) VALUES (%s, %s, %s, %s)",
                [position, account, cents, currency],
            )
        cursor.execute(f"INSERT INTO ledger_event ({columns}) VALUES ({', '.join(marks)})", values)
    return position
