"""Checkpoints name their ledger, and a missing one is said out loud.

One ``LEDGER_CHECKPOINT_DIR`` may hold several ledgers' checkpoints (the demo's database deleted
and made again): ``ledger verify`` checks this ledger's against its chain and counts the others
as ignored, instead of failing on them. A checkpoint file deleted or renamed is found from the
database's record of it and from its successor's ``previous``: ``ledger verify`` fails naming
it, the ``casino_ledger_checkpoints_missing`` gauge counts it, and checkpointing carries on
(before, a file renamed to a higher position stopped every later checkpoint).
"""

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from cashier.services.cage import chips_purchase
from ledger import checkpoints, signing
from ledger.hashing import canonical_json
from ledger.models import CheckpointRecord
from ledger.store import head
from tests.conftest import make_patron
from tests.integration.test_anchored_chain import _Out, _verify

pytestmark = pytest.mark.django_db


@pytest.fixture
def played(cage) -> str:
    """A patron who bought chips three times: a short ledger."""
    patron = make_patron(100_000)
    for amount in (1_000, 2_000, 3_000):
        chips_purchase(patron=patron, amount_cents=amount, actor="tester")
    return patron


def _buy(patron: str) -> None:
    chips_purchase(patron=patron, amount_cents=500, actor="tester")


def _plant(document: dict, *parts: str) -> Path:
    """A checkpoint signed with this site's key, written where another ledger's would be."""
    path = Path(checkpoints.directory(), *parts)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(canonical_json(signing.sign_document(document)) + "\n")
    return path


def _missing_gauge() -> float:
    response = Client().get("/metrics")
    assert response.status_code == 200
    line = next(row for row in response.content.decode().splitlines() if row.startswith("casino_ledger_checkpoints"))
    return float(line.split()[-1])


def test_another_ledgers_checkpoints_are_ignored_and_counted(played):
    own = checkpoints.write_checkpoint()
    other = "f" * 32
    # Another database's checkpoint far beyond this head, with another first event: before,
    # `ledger verify` called this ledger's tail cut.
    _plant(
        {
            "format": checkpoints.FORMAT,
            "ledger": other,
            "genesis": "e" * 64,
            "position": own.position + 500,
            "hash": "d" * 64,
            "written_at": "2026-01-02T03:04:05+00:00",
            "previous": None,
        },
        other,
        "2026-01-02",
        f"{own.position + 500:015d}-{'d' * 16}.json",
    )
    # And one of the first format (no ledger named) signed before this ledger's first event.
    _plant(
        {
            "format": checkpoints.FIRST_FORMAT,
            "position": own.position + 900,
            "hash": "c" * 64,
            "written_at": "2026-01-01T00:00:00+00:00",
        },
        "2026-01-01",
        f"{own.position + 900:015d}-{'c' * 16}.json",
    )
    # One of the first format signed after this ledger began (an upgraded site's): its own.
    _plant(
        {
            "format": checkpoints.FIRST_FORMAT,
            "position": own.position,
            "hash": own.hash,
            "written_at": datetime.now(UTC).isoformat(),
        },
        "2026-01-03",
        f"{own.position:015d}-{own.hash[:16]}.json",
    )
    text = _verify()
    ledger = checkpoints.identity().ledger_id
    assert text.startswith(f"ledger chain intact: {own.position} events")
    assert f"2 signed checkpoints match, the last at position {own.position}" in text
    assert text.rstrip().endswith(
        f"; ledger {ledger}; 2 checkpoints of other ledgers ignored "
        f"(1 of before checkpoints named their ledger, 1 of ledger {other})"
    )
    assert [c.position for c in checkpoints.load_checkpoints()] == [own.position, own.position]


def test_a_checkpoint_naming_another_id_but_this_first_event_is_this_ledgers(played):
    """An id lost (its row deleted by a superuser, the ledger named again) does not make the
    ledger's own checkpoints foreign, where ignoring them would hide a cut tail: they name its
    first event's hash too."""
    position, last_hash = head()
    genesis = checkpoints.first_event_hash()
    _plant(
        {
            "format": checkpoints.FORMAT,
            "ledger": "a" * 32,
            "genesis": genesis,
            "position": position + 3,
            "hash": "b" * 64,
            "written_at": "2026-01-02T03:04:05+00:00",
            "previous": None,
        },
        "a" * 32,
        "2026-01-02",
        f"{position + 3:015d}-{'b' * 16}.json",
    )
    anchors = checkpoints.examine()
    assert [c.position for c in anchors.mine] == [position + 3] and anchors.foreign == {}
    message = _verify()
    assert message.startswith(f"BROKEN ledger chain BROKEN at position {position + 1}: the ledger ends at position")


def test_a_renamed_checkpoint_is_reported_and_checkpointing_carries_on(played):
    first = checkpoints.write_checkpoint()
    _buy(played)
    second = checkpoints.write_checkpoint()
    assert second.previous == (first.position, first.hash)
    assert _missing_gauge() == 0
    # Renamed out of sight (not *.json any more).
    os.rename(first.file, first.file + ".bak")
    with pytest.raises(CommandError) as failed:
        call_command("ledger", "verify", stdout=_Out())
    message = str(failed.value)
    assert message.startswith(f"ledger checkpoints INCOMPLETE: checkpoint of position {first.position} written ")
    assert f"file {Path(first.file).relative_to(checkpoints.directory()).as_posix()}: missing from" in message
    assert f"follows the checkpoint of position {first.position}, which is missing" in message
    assert _missing_gauge() == 1
    # Renamed to look like a far later checkpoint: before, no checkpoint was written after it.
    forged = Path(second.file).with_name(f"{999_999_999_999_999:015d}-{'0' * 16}.json")
    os.rename(second.file, forged)
    _buy(played)
    third = checkpoints.write_checkpoint()
    assert third is not None and third.position == head()[0] == second.position + 1
    assert _missing_gauge() == 2
    message = _verify()
    assert f"file {forged.relative_to(checkpoints.directory()).as_posix()} holds the checkpoint of position" in message
    assert f"{second.position}: renamed" in message


def test_a_deleted_last_checkpoint_is_reported(played):
    checkpoints.write_checkpoint()
    _buy(played)
    last = checkpoints.write_checkpoint()
    os.remove(last.file)
    assert checkpoints.missing_files() == [Path(last.file).relative_to(checkpoints.directory()).as_posix()]
    message = _verify()
    assert message.startswith("BROKEN ledger checkpoints INCOMPLETE: checkpoint of position")
    assert f"position {last.position} written" in message and "(deleted, renamed or moved)" in message


def test_the_next_checkpoint_follows_the_records_not_the_file_names(played):
    written = checkpoints.write_checkpoint()
    record = CheckpointRecord.objects.get()
    assert (record.position, record.hash) == (written.position, written.hash)
    assert record.file == Path(written.file).relative_to(checkpoints.directory()).as_posix()
    assert record.written_at <= datetime.now(UTC)
    assert checkpoints.latest_position() == written.position


def test_a_checkpoint_directory_holding_none_of_the_recorded_ones_is_named(played, settings, tmp_path):
    first = checkpoints.write_checkpoint()
    _buy(played)
    last = checkpoints.write_checkpoint()
    settings.LEDGER_CHECKPOINT_DIR = str(tmp_path / "elsewhere")
    message = _verify()
    assert message.startswith(
        f"BROKEN ledger checkpoints INCOMPLETE: none of the 2 checkpoints this database recorded writing "
        f"(positions {first.position} to {last.position}) is in {tmp_path / 'elsewhere'}"
    )
    assert _missing_gauge() == 2
