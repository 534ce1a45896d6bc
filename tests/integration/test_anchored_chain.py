"""``ledger verify`` must see a recomputed chain or a cut tail.

A balanced edit (+500 EUR to a patron, -500 EUR to the cage's chips) with every following hash
recomputed, or the last events deleted, leaves a hash chain that is consistent in itself: the
walk alone says "intact". Signed checkpoints of the head, written outside the database
(``ledger.checkpoints``), anchor it: ``ledger verify`` now finds both, and refuses a checkpoint
file it cannot trust.

The tampering is what a database superuser can do (triggers off: ``session_replication_role =
replica``), so these tests need PostgreSQL.
"""

import json
import os
import stat
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from cashier.services.cage import chips_purchase
from ledger import checkpoints, signing
from ledger.accounts import CAGE_CHIPS, patron_chips
from ledger.event_seals import seal
from ledger.hashing import canonical_json, event_hash
from ledger.models import Event, Posting
from ledger.store import balance, head
from ledger.verify import verify_chain
from tests.conftest import make_patron

pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser_tamper(_replication_role_reset):
    """Triggers off for this test's connection, as a superuser can (reset afterwards)."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: the tampering switches the triggers off as a superuser")
    with connection.cursor() as cursor:
        cursor.execute("SET session_replication_role = replica")


@pytest.fixture
def busy_ledger(cage) -> str:
    """A patron who bought chips, then 12 more purchases by others after him."""
    patron = make_patron(100_000)
    for _ in range(4):
        other = make_patron(0)
        for amount in (1_000, 2_000, 3_000):
            chips_purchase(patron=other, amount_cents=amount, actor="tester")
    return patron


def _recompute_from(position: int) -> int:
    """Rewrite every hash from ``position`` on so that the chain is consistent again, and seal
    each one (the forger's step: he holds the application's key too, so only the signed
    checkpoints can find him). Returns how many events were rehashed."""
    rows = list(Event.objects.filter(position__gte=position).order_by("position"))
    prev = Event.objects.get(position=position - 1).hash if position > 1 else "0" * 64
    with connection.cursor() as cursor:
        for event in rows:
            legs = list(
                Posting.objects.filter(event_id=event.position).values_list("account", "amount_cents", "currency")
            )
            new_hash = event_hash(
                position=event.position,
                stream=event.stream,
                version=event.version,
                type=event.type,
                schema_version=event.schema_version,
                data=event.data,
                occurred_at=event.occurred_at,
                recorded_at=event.recorded_at,
                gaming_day=event.gaming_day,
                actor=event.actor,
                correlation_id=event.correlation_id,
                causation_id=event.causation_id,
                idempotency_key=event.idempotency_key,
                prev_hash=prev,
                postings=legs,
            )
            cursor.execute(
                "UPDATE ledger_event SET prev_hash = %s, hash = %s, seal = %s WHERE position = %s",
                [prev, new_hash, seal(new_hash), event.position],
            )
            prev = new_hash
    return len(rows)


def _balanced_edit(patron: str) -> int:
    """+50,000 cents to the patron's chips and -50,000 to the cage's, in his purchase: its position."""
    posting = Posting.objects.filter(account=patron_chips(patron)).order_by("event_id").first()
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE ledger_posting SET amount_cents = amount_cents + 50000 WHERE event_id = %s AND account = %s",
            [posting.event_id, patron_chips(patron)],
        )
        cursor.execute(
            "UPDATE ledger_posting SET amount_cents = amount_cents - 50000 WHERE event_id = %s AND account = %s",
            [posting.event_id, CAGE_CHIPS],
        )
    return posting.event_id


def _verify() -> str:
    try:
        call_command("ledger", "verify", stdout=(out := _Out()))
    except CommandError as error:
        return f"BROKEN {error}"
    return out.text


class _Out:
    def __init__(self):
        self.text = ""

    def write(self, text):
        self.text += text

    def flush(self):
        pass


def test_a_recomputed_chain_passes_the_walk_but_not_the_checkpoints(busy_ledger, superuser_tamper):
    call_command("ledger", "checkpoint", stdout=_Out())
    anchored, _ = head()
    before = balance(patron_chips(busy_ledger))
    edited = _balanced_edit(busy_ledger)
    rehashed = _recompute_from(edited)
    assert rehashed == anchored - edited + 1 >= 12
    assert balance(patron_chips(busy_ledger)) == before + 50_000  # the patron is 500 EUR richer
    # The fault as reported: the chain alone is consistent again.
    assert verify_chain().ok
    # With the checkpoints (what `ledger verify` reads): found, at the anchored position.
    result = verify_chain(checkpoints=checkpoints.load_checkpoints())
    assert not result.ok and result.first_bad_position == anchored
    assert "rewritten at or before position" in result.reason
    assert _verify().startswith(f"BROKEN ledger chain BROKEN at position {anchored}: hash is not the one signed")


def test_a_cut_tail_passes_the_walk_but_not_the_checkpoints(busy_ledger, superuser_tamper):
    call_command("ledger", "checkpoint", stdout=_Out())
    anchored, _ = head()
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM ledger_posting WHERE event_id > %s", [anchored - 5])
        cursor.execute("DELETE FROM ledger_event WHERE position > %s", [anchored - 5])
    assert head()[0] == anchored - 5
    report = _verify()
    assert report.startswith(f"BROKEN ledger chain BROKEN at position {anchored - 4}: the ledger ends at position")
    assert f"signed position {anchored}: events were removed from the end" in report


def test_verify_reports_the_checkpoints_it_matched(busy_ledger):
    written = checkpoints.write_checkpoint()
    assert written is not None and written.position == head()[0]
    chips_purchase(patron=busy_ledger, amount_cents=500, actor="tester")
    second = checkpoints.write_checkpoint()
    assert second.position == written.position + 1
    text = _verify()
    assert text.startswith(f"ledger chain intact: {second.position} events")
    assert f"2 signed checkpoints match, the last at position {second.position}" in text


def test_a_checkpoint_file_is_added_once_and_read_only(busy_ledger):
    written = checkpoints.write_checkpoint()
    path = Path(written.file)
    ledger = checkpoints.identity().ledger_id
    assert path.parent.parent == Path(checkpoints.directory()) / ledger
    assert path.name == f"{written.position:015d}-{written.hash[:16]}.json"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o444
    document = json.loads(path.read_text())
    assert document["position"] == written.position and document["hash"] == Event.objects.last().hash
    assert document["algorithm"] == "Ed25519" and document["public_key"] == signing.signing_key().public_key
    assert document["ledger"] == ledger and document["genesis"] == Event.objects.get(position=1).hash
    assert document["previous"] is None  # the first of this ledger
    assert checkpoints.write_checkpoint() is None  # the head did not move: nothing new
    assert len(list(Path(checkpoints.directory()).glob("*/*/*.json"))) == 1


def test_a_checkpoint_follows_every_n_events(busy_ledger, settings):
    settings.LEDGER_CHECKPOINT_EVENTS = 3
    assert checkpoints.write_if_due().position == head()[0]
    chips_purchase(patron=busy_ledger, amount_cents=100, actor="tester")
    chips_purchase(patron=busy_ledger, amount_cents=100, actor="tester")
    assert checkpoints.write_if_due() is None  # 2 events since the last
    chips_purchase(patron=busy_ledger, amount_cents=100, actor="tester")
    assert checkpoints.write_if_due().position == head()[0]


def test_the_beat_schedule_writes_checkpoints(busy_ledger, settings):
    from ledger.tasks import write_checkpoint

    entry = settings.CELERY_BEAT_SCHEDULE["ledger-checkpoint"]
    assert entry == {"task": "ledger.tasks.write_checkpoint", "schedule": 60.0}
    assert write_checkpoint.apply().get() == head()[0]


def test_verify_refuses_a_checkpoint_it_cannot_trust(busy_ledger, settings, tmp_path):
    written = checkpoints.write_checkpoint()
    path = Path(written.file)
    document = json.loads(path.read_text())
    # An altered checkpoint (the forger's new hash put in): its signature fails.
    os.chmod(path, 0o644)
    path.write_text(canonical_json({**document, "hash": "f" * 64}))
    with pytest.raises(CommandError, match=rf"checkpoint {path}: its signature does not verify"):
        call_command("ledger", "verify", stdout=_Out())
    # One signed by a key this site does not trust (the forger's own).
    other = tmp_path / "other.pem"
    other.write_bytes(signing.new_private_key_pem())
    settings.LEDGER_SIGNING_KEY_FILE = str(other)
    foreign = signing.sign_document({k: v for k, v in document.items() if k != "signature"})
    settings.LEDGER_SIGNING_KEY_FILE = ""
    path.write_text(canonical_json(foreign))
    with pytest.raises(CommandError, match="not a trusted key"):
        call_command("ledger", "verify", stdout=_Out())
    # Trusted once listed (a key used before a rotation).
    settings.LEDGER_TRUSTED_PUBLIC_KEYS = [foreign["public_key"]]
    assert _verify().startswith("ledger chain intact")


def test_require_checkpoints_fails_without_any(busy_ledger):
    with pytest.raises(CommandError, match=r"no checkpoint in .* \(--require-checkpoints\)"):
        call_command("ledger", "verify", "--require-checkpoints", stdout=_Out())
    assert "no checkpoint in" in _verify()  # without the flag: intact, saying what it could not check
    call_command("ledger", "checkpoint", stdout=_Out())
    call_command("ledger", "verify", "--require-checkpoints", stdout=_Out())


def test_public_key_prints_the_key_that_signs(settings, tmp_path, capsys):
    key_file = tmp_path / "site.pem"
    key_file.write_bytes(signing.new_private_key_pem())
    settings.LEDGER_SIGNING_KEY_FILE = str(key_file)
    call_command("ledger", "public-key")
    public, key_id, kind = capsys.readouterr().out.split()[:3]
    assert (public, key_id, kind) == (signing.signing_key().public_key, signing.signing_key().key_id, "configured")
    assert len(public) == 64 and key_id.startswith("ed25519:")


def test_an_auditor_verifies_with_the_site_public_key_alone(busy_ledger, settings, tmp_path):
    """The verifying machine holds no private key: LEDGER_TRUSTED_PUBLIC_KEYS, and no key is made for it."""
    site = tmp_path / "site.pem"
    site.write_bytes(signing.new_private_key_pem())
    settings.LEDGER_SIGNING_KEY_FILE = str(site)
    checkpoints.write_checkpoint()
    public = signing.signing_key().public_key
    settings.LEDGER_SIGNING_KEY_FILE = ""
    settings.LEDGER_DEVELOPMENT_KEY_FILE = tmp_path / "auditor" / "dev.pem"
    with pytest.raises(CommandError, match="not a trusted key"):
        call_command("ledger", "verify", stdout=_Out())
    settings.LEDGER_TRUSTED_PUBLIC_KEYS = [public]
    assert "1 signed checkpoints match" in _verify()
    assert not (tmp_path / "auditor" / "dev.pem").exists()
