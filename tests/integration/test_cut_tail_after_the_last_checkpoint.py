"""Events cut after the last signed checkpoint: no signature covers them, but the records they
left behind (their commands' idempotency records, the audit trail, the projections that applied
them, the last verification) name positions the shortened ledger no longer reaches, and
``ledger verify`` says so. Checkpoints also keep pace with time where no beat runs.

The cut is what a database superuser can do (triggers off), so the tampering needs PostgreSQL.
"""

from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from cashier.services.cage import chips_purchase
from ledger import checkpoints, projections, tail_witnesses
from ledger.models import (
    AccountBalance,
    AuditEntry,
    ChainVerification,
    IdempotencyRecord,
    ProjectionCheckpoint,
)
from ledger.store import head
from ledger.verify import record_verification, verify_chain
from tests.conftest import make_patron
from tests.integration.test_anchored_chain import superuser_tamper  # noqa: F401 - a fixture

pytestmark = pytest.mark.django_db


@pytest.fixture
def anchored_then_played(cage) -> tuple[int, int]:
    """A checkpoint signed, then six more purchases: (the anchored position, the head)."""
    patron = make_patron(0)
    chips_purchase(patron=patron, amount_cents=1_000, actor="tester", idempotency_key="before-1")
    call_command("ledger", "checkpoint", stdout=_Quiet())
    anchored = head()[0]
    for n in range(6):
        chips_purchase(patron=patron, amount_cents=1_000 + n, actor="tester", idempotency_key=f"after-{n}")
    projections.catch_up_all()  # the worker applied them
    assert record_verification(verify_chain())  # the operator's last verify saw the whole ledger
    return anchored, head()[0]


class _Quiet:
    def write(self, text):
        pass

    def flush(self):
        pass


def _cut_after(position: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM ledger_posting WHERE event_id > %s", [position])
        cursor.execute("DELETE FROM ledger_event WHERE position > %s", [position])


@pytest.mark.usefixtures("superuser_tamper")
def test_events_cut_after_the_last_checkpoint_are_found_by_what_they_left(anchored_then_played):
    anchored, played = anchored_then_played
    _cut_after(anchored)
    assert head()[0] == anchored  # every signed checkpoint is still reached
    result = verify_chain(checkpoints=checkpoints.load_checkpoints())
    assert not result.ok and result.first_bad_position == anchored + 1
    assert result.reason.startswith(f"the ledger ends at position {anchored}, but ")
    assert f"the audit trail recorded position {played}" in result.reason
    assert f"an earlier verification recorded position {played}" in result.reason
    assert result.reason.endswith("events were removed from the end")
    with pytest.raises(CommandError, match=f"ledger chain BROKEN at position {anchored + 1}"):
        call_command("ledger", "verify", stdout=_Quiet())


@pytest.mark.parametrize(
    ("kept", "words"),
    [
        (AuditEntry, "the audit trail"),
        (IdempotencyRecord, "a command's idempotency record"),
        (ProjectionCheckpoint, "a projection's checkpoint"),
        (AccountBalance, "an account balance"),
        (ChainVerification, "an earlier verification"),
    ],
)
@pytest.mark.usefixtures("superuser_tamper")
def test_a_forger_must_clean_every_witness_one_left_is_enough(anchored_then_played, kept, words):
    anchored, played = anchored_then_played
    _cut_after(anchored)
    cleaned = {
        AuditEntry: lambda: AuditEntry.objects.filter(position__gt=anchored).delete(),
        IdempotencyRecord: lambda: IdempotencyRecord.objects.filter(position__gt=anchored).delete(),
        ProjectionCheckpoint: lambda: ProjectionCheckpoint.objects.filter(position__gt=anchored).update(
            position=anchored
        ),
        AccountBalance: lambda: AccountBalance.objects.filter(last_position__gt=anchored).update(
            last_position=anchored
        ),
        ChainVerification: lambda: ChainVerification.objects.all().delete(),
    }
    for model, clean in cleaned.items():
        if model is not kept:
            clean()
    found = tail_witnesses.beyond(anchored)
    assert [w.what for w in found] == [words]
    assert found[0].position > anchored and found[0].position <= played


def test_an_untouched_ledger_has_no_record_beyond_its_head(anchored_then_played):
    assert tail_witnesses.beyond(head()[0]) == []
    assert verify_chain(checkpoints=checkpoints.load_checkpoints()).ok


def test_a_checkpoint_is_due_by_age_once_the_head_moved(cage, settings, monkeypatch):
    settings.LEDGER_CHECKPOINT_INTERVAL_SECONDS = 60
    patron = make_patron(0)
    chips_purchase(patron=patron, amount_cents=1_000, actor="tester")
    assert checkpoints.write_if_due() is None  # the first event is seconds old
    later = datetime.now(UTC) + timedelta(seconds=61)
    monkeypatch.setattr(checkpoints, "datetime", _clock(later))
    assert checkpoints.write_if_due().position == head()[0]
    assert checkpoints.write_if_due() is None  # the head did not move
    chips_purchase(patron=patron, amount_cents=1_000, actor="tester")
    assert checkpoints.write_if_due() is None  # the last checkpoint is seconds old (on this clock)
    monkeypatch.setattr(checkpoints, "datetime", _clock(later + timedelta(seconds=61)))
    assert checkpoints.write_if_due().position == head()[0]


def test_no_checkpoint_by_age_when_the_interval_is_zero(cage, settings, monkeypatch):
    settings.LEDGER_CHECKPOINT_INTERVAL_SECONDS = 0
    chips_purchase(patron=make_patron(0), amount_cents=1_000, actor="tester")
    monkeypatch.setattr(checkpoints, "datetime", _clock(datetime.now(UTC) + timedelta(days=1)))
    assert checkpoints.write_if_due() is None


def _clock(fixed: datetime) -> type[datetime]:
    """A ``datetime`` whose ``now`` is ``fixed``, for the module under test."""
    return type("FixedClock", (datetime,), {"now": classmethod(lambda cls, tz=None: fixed)})
