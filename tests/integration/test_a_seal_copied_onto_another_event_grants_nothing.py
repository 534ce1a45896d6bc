"""The seal is a keyed digest of an event's hash, and any hash can be written in a row: someone
holding the database credentials, but not ``SECRET_KEY``, copies a genuine event's ``hash`` and
``seal`` onto a row of his own (a ``DealerAssigned`` to another dealer, or a genuine old
assignment replayed at the tail after its release). The seal then matches the hash column, but
not the row: the reads that grant authority and the checkpoint writer must hold the row to its
hash (recompute it) before they trust the seal, as ``ledger verify`` does.
"""

import json

import pytest
from django.db import connection

from ledger import checkpoints, store
from ledger.models import Event
from ledger.verify import verify_chain
from staff.services import ASSIGNMENTS_STREAM, assigned_table

pytestmark = [
    pytest.mark.django_db,
    # SQLite keeps a unique index on the hash column (PostgreSQL dropped it: ledger migration
    # 0008), so there a copied hash is refused at the INSERT.
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL: the hash column is not unique there"),
]

COLUMNS = (
    "position, stream, version, type, schema_version, data, occurred_at, recorded_at, gaming_day, actor, "
    "correlation_id, causation_id, idempotency_key, prev_hash, hash, seal"
)


def _insert_with_copied_seal(type_: str, data: dict, stream: str, *, copied_from: Event) -> int:
    """INSERT a row after the head carrying ``copied_from``'s hash and seal (raw SQL, as the
    application's database role can)."""
    last = Event.objects.order_by("-position").first()
    position = last.position + 1
    values = [
        position, stream, store.stream_version(stream) + 1, type_, 1, json.dumps(data), last.recorded_at,
        last.recorded_at, last.gaming_day, "pit1", "", "", None, last.hash, copied_from.hash, copied_from.seal,
    ]  # fmt: skip
    marks = ["%s"] * len(values)
    if connection.vendor == "postgresql":
        marks[5] = "CAST(%s AS jsonb)"
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO ledger_event ({COLUMNS}) VALUES ({', '.join(marks)})", values)
    return position


def _genuine_assignment() -> Event:
    return Event.objects.filter(type="DealerAssigned", data__dealer="dealer1").order_by("-position").first()


def test_a_dealer_assignment_carrying_another_events_seal_grants_no_authority(dealt_table):
    genuine = _genuine_assignment()
    assert genuine is not None and genuine.seal
    data = {"dealer": "dealer2", "table": "T1", "before": None, "after": "T1", "assignment": 999}
    _insert_with_copied_seal("DealerAssigned", data, ASSIGNMENTS_STREAM, copied_from=genuine)
    assert assigned_table("dealer2") is None


def test_a_genuine_assignment_replayed_at_the_tail_after_its_release_grants_nothing(dealt_table):
    genuine = _genuine_assignment()
    store.append(
        stream=ASSIGNMENTS_STREAM,
        expected_version=store.stream_version(ASSIGNMENTS_STREAM),
        actor="pit1",
        events=[store.NewEvent("DealerReleased", {"dealer": "dealer1", "table": "T1", "before": "T1", "after": None})],
    )
    assert assigned_table("dealer1") is None
    _insert_with_copied_seal(genuine.type, genuine.data, ASSIGNMENTS_STREAM, copied_from=genuine)
    assert assigned_table("dealer1") is None


def test_the_checkpoint_writer_does_not_sign_a_row_carrying_another_events_seal(dealt_table):
    assert checkpoints.write_checkpoint() is not None
    genuine = _genuine_assignment()
    data = {"dealer": "dealer2", "table": "T1", "before": None, "after": "T1", "assignment": 999}
    position = _insert_with_copied_seal("DealerAssigned", data, ASSIGNMENTS_STREAM, copied_from=genuine)
    assert checkpoints.write_checkpoint() is None
    assert checkpoints.latest_position() == position - 1
    found = verify_chain()
    assert (found.ok, found.first_bad_position) == (False, position)
