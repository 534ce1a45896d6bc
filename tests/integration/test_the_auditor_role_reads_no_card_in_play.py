"""The auditor's database role reads no face-down card while its coup is played: deploy/
postgres_roles.sql gives it the ledger (and the audit trail's, the checkpoints' and the
verifications' hashes) only below the first hole card or down card of a coup not yet settled
or voided, since every hash from that card onwards gives it away in 52 guesses. Once the coup
is over it reads everything, and ``ledger verify`` as the auditor verifies the whole chain;
during the coup it verifies the chain as far as it reads and says so. The application's role
reads every row throughout."""

import json
import os
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from django.conf import settings

from ledger import signing
from ledger.event_seals import seal
from ledger.hashing import GENESIS_HASH, event_hash

from .roles_database import connect_as, roles_database

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

AT = datetime(2026, 12, 6, 4, 0, tzinfo=UTC)
DAY = date(2026, 12, 5)
ROUND = "round/6f1c3b0e-8a51-4a3e-9a6b-2f0d1c7e5b10"
COLUMNS = (
    "position, stream, version, type, schema_version, data, occurred_at, recorded_at, gaming_day, actor,"
    " correlation_id, causation_id, prev_hash, hash, seal"
)


class Chain:
    """Events appended by the application's role, each hashed onto the one before and sealed."""

    def __init__(self, db):
        self.db, self.position, self.prev = db, 0, GENESIS_HASH
        self.versions: dict[str, int] = {}

    def append(self, stream: str, type_: str, data: dict, at: datetime = AT) -> int:
        self.position += 1
        version = self.versions[stream] = self.versions.get(stream, 0) + 1
        fields = dict(
            position=self.position, stream=stream, version=version, type=type_, schema_version=1, data=data,
            occurred_at=at, recorded_at=at, gaming_day=DAY, actor="dealer", correlation_id="", causation_id="",
            idempotency_key=None, prev_hash=self.prev,
        )  # fmt: skip
        hash_ = event_hash(**fields, postings=[])
        with connect_as(self.db, "casino_app") as app:
            app.execute(
                f"INSERT INTO ledger_event ({COLUMNS}) VALUES (%s, %s, %s, %s, 1, %s, %s, %s, %s, 'dealer', '', '',"
                " %s, %s, %s)",
                [self.position, stream, version, type_, json.dumps(data), at, at, DAY, self.prev, hash_, seal(hash_)],
            )
        self.prev = hash_
        return self.position


def _verify_as_auditor(db: dict, tmp_path: Path) -> subprocess.CompletedProcess:
    return _verify_as(db, tmp_path, "casino_auditor")


def _verify_as(db: dict, tmp_path: Path, role: str) -> subprocess.CompletedProcess:
    key = tmp_path / "site.pem"
    if not key.exists():
        key.write_bytes(signing.new_private_key_pem())
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "casino.settings",
        "DATABASE_URL": f"postgres://{role}@{db['host']}:{db['port']}/{db['dbname']}",
        "LEDGER_CHECKPOINT_DIR": str(tmp_path / "checkpoints"),
        "LEDGER_SIGNING_KEY_FILE": str(key),
        "CELERY_BROKER_URL": "",
    }
    return subprocess.run(
        [sys.executable, "manage.py", "ledger", "verify"],
        cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


@pytest.fixture
def roles_db(django_db_setup, django_db_blocker):
    with roles_database("cardsinplay") as db:
        yield db


def _cards(db: dict, role: str) -> list[tuple]:
    with connect_as(db, role) as conn:
        return conn.execute(
            "SELECT position, data->>'card' FROM ledger_event WHERE stream = %s AND type = 'CardDealt'"
            " ORDER BY position",
            [ROUND],
        ).fetchall()


def test_a_hole_card_and_every_hash_after_it_stay_from_the_auditor_until_the_coup_is_over(roles_db, tmp_path):
    chain = Chain(roles_db)
    round_id = ROUND.removeprefix("round/")
    chain.append(ROUND, "RoundOpened", {"round": round_id, "table": "CS1", "number": 1})
    card = {"round": round_id, "table": "CS1", "shoe": "s", "index": 0}
    chain.append(ROUND, "CardDealt", {**card, "card": "7D", "box": 1, "face": "up"})
    hole = chain.append(ROUND, "CardDealt", {**card, "index": 1, "card": "AS", "box": "dealer", "face": "hole"})
    chain.append("cage", "CageOpened", {})  # another table's event after the hole card: its prev_hash is the card's

    # The attack: the hole card read straight from the ledger during the decisions.
    assert _cards(roles_db, "casino_auditor") == [(2, "7D")]
    with connect_as(roles_db, "casino_auditor") as auditor:
        assert auditor.execute("SELECT max(position), count(*) FROM ledger_event").fetchone() == (hole - 1, 2)
    assert _cards(roles_db, "casino_app") == [(2, "7D"), (3, "AS")]
    verified = _verify_as_auditor(roles_db, tmp_path)
    assert verified.returncode == 3, verified.stderr  # partial: not "intact", its own exit status
    assert "verified up to position 2 only: positions from 3 are withheld from this role" in verified.stdout
    assert "ledger chain intact as far as this role reads: 2 events, head position 2" in verified.stdout
    assert "verification PARTIAL: positions from 3 are withheld from this role" in verified.stderr

    chain.append(ROUND, "RoundSettled", {"round": round_id, "table": "CS1", "dealer": ["AS", "7D"]})
    assert _cards(roles_db, "casino_auditor") == [(2, "7D"), (3, "AS")]
    verified = _verify_as_auditor(roles_db, tmp_path)
    assert verified.returncode == 0, verified.stderr
    assert verified.stdout.startswith("ledger chain intact: 5 events, head position 5")


def test_a_patron_row_made_while_a_coup_is_in_play_is_left_undecided_then_found_once_it_is_over(roles_db, tmp_path):
    """The auditor's verify during a coup reads no event past the hole card: a patron registered
    then (his event beyond it) must not ring "changed outside the ledger" beside a real break,
    and a row written with no event at all must still be found once the coup is over."""
    chain = Chain(roles_db)
    round_id = ROUND.removeprefix("round/")
    chain.append(ROUND, "RoundOpened", {"round": round_id, "table": "CS1", "number": 1})
    card = {"round": round_id, "table": "CS1", "shoe": "s", "index": 0}
    chain.append(ROUND, "CardDealt", {**card, "card": "9C", "box": "dealer", "face": "hole"})
    with connect_as(roles_db, "casino_app") as app:
        app.execute(
            "INSERT INTO cashier_patron (code, kind, name, document, document_key, name_key, created_at)"
            " VALUES ('P00077', 'anonymous', '', '', '', '', now())"
        )

    during = _verify_as_auditor(roles_db, tmp_path)
    assert during.returncode == 3, during.stderr
    # The application's role reads the whole ledger: the same row is decided, and reported.
    whole = _verify_as(roles_db, tmp_path, "casino_app")
    assert whole.returncode == 1
    assert "identity CHANGED OUTSIDE THE LEDGER: patron P00077: exists, but no identity event" in whole.stderr
    assert "CHANGED OUTSIDE THE LEDGER" not in during.stdout + during.stderr
    assert (
        "identity: patron P00077: exists, but no identity event in the ledger created it: not decided, "
        "its events may lie from position 2 on, withheld from this role"
    ) in during.stderr
    # An edit below the card breaks the chain: the break is named, the identity still undecided.
    with connect_as(roles_db, roles_db["user"]) as superuser:
        superuser.execute("SET session_replication_role = replica")
        superuser.execute("UPDATE ledger_event SET actor = 'forger' WHERE position = 1")
    broken = _verify_as_auditor(roles_db, tmp_path)
    assert broken.returncode == 1
    assert "ledger chain BROKEN at position 1" in broken.stderr
    assert "CHANGED OUTSIDE THE LEDGER" not in broken.stdout + broken.stderr
    with connect_as(roles_db, roles_db["user"]) as superuser:
        superuser.execute("SET session_replication_role = replica")
        superuser.execute("UPDATE ledger_event SET actor = 'dealer' WHERE position = 1")

    chain.append(ROUND, "RoundSettled", {"round": round_id, "table": "CS1", "dealer": ["9C"]})
    after = _verify_as_auditor(roles_db, tmp_path)
    assert after.returncode == 1
    assert "identity CHANGED OUTSIDE THE LEDGER: patron P00077: exists, but no identity event" in after.stderr


def test_an_event_dressed_as_a_card_in_play_hides_nothing_for_ever_from_the_auditor(roles_db):
    """A face-down card withholds the rest only when it is dealt on its coup's own stream and
    within 12 hours of the ledger's head: data made to look like one elsewhere (to hide an edit
    behind it from the auditor's verify) hides nothing, and a coup that never ends stops hiding
    once the ledger has gone 12 hours past its card."""
    chain = Chain(roles_db)
    round_id = ROUND.removeprefix("round/")
    card = {"round": round_id, "table": "CS1", "shoe": "s", "index": 0, "box": "dealer", "face": "hole"}
    chain.append("cage", "CageOpened", {**card, "card": "KS"})  # not a card dealt: no coup's stream
    chain.append(ROUND, "CardDealt", {**card, "round": "00000000-0000-0000-0000-00000000dead", "card": "QS"})
    with connect_as(roles_db, "casino_auditor") as auditor:
        assert auditor.execute("SELECT count(*) FROM ledger_event").fetchone() == (2,)

    hole = chain.append(ROUND, "CardDealt", {**card, "card": "AS"})
    with connect_as(roles_db, "casino_auditor") as auditor:
        assert auditor.execute("SELECT max(position) FROM ledger_event").fetchone() == (hole - 1,)
    chain.append("cage", "CageClosed", {}, at=AT + timedelta(hours=12, seconds=1))
    with connect_as(roles_db, "casino_auditor") as auditor:
        assert auditor.execute("SELECT count(*) FROM ledger_event").fetchone() == (4,)


def test_a_policy_of_anyone_elses_on_the_ledger_is_reported_unguarded(roles_db, tmp_path):
    """Row security on the ledger is accepted only as the role script sets it up: a policy that
    hides rows (from the application, from a verify) is named by ``ledger verify``."""
    chain = Chain(roles_db)
    chain.append("cage", "CageOpened", {})
    with connect_as(roles_db, roles_db["user"]) as superuser:
        superuser.execute("CREATE POLICY hide_the_tail ON ledger_event AS RESTRICTIVE FOR SELECT USING (position < 1)")
    verified = _verify_as_auditor(roles_db, tmp_path)
    assert verified.returncode == 1
    assert "row level security enabled on ledger_event other than deploy/postgres_roles.sql's" in verified.stderr
