"""Someone holding the application's database credentials, but not its ``SECRET_KEY``, INSERTs an
event at the ledger's tail with a correct hash: a ``DealerAssigned`` that would let another
dealer sign at a table. The chain carries it (its hash and ``prev_hash`` are right), but it
lacks the application's seal (``ledger.event_seals``): the dealer's authority ignores it,
``ledger verify`` names its position, the checkpoint writer will not sign it and the readiness
probe answers 503. Every way the application writes events seals them.
"""

import pytest
from django.test import Client

from ledger import checkpoints, store
from ledger.event_seals import SEAL_FIELDS, _seal_with, first_unsealed
from ledger.models import ChainVerification, Event
from ledger.store import Leg, NewEvent
from ledger.verify import verify_chain
from staff.services import ASSIGNMENTS_STREAM, assigned_dealers, assigned_table
from tests.integration.forgery import forge

pytestmark = pytest.mark.django_db


def _forged_assignment(**seal) -> int:
    data = {"dealer": "dealer2", "table": "T1", "before": None, "after": "T1", "assignment": 999}
    return forge("DealerAssigned", data, ASSIGNMENTS_STREAM, **seal)


def test_a_forged_dealer_assignment_with_a_correct_hash_grants_no_authority(dealt_table):
    assert assigned_table("dealer2") is None
    position = _forged_assignment()
    assert Event.objects.get(position=position).hash  # on the chain, hash right
    assert assigned_table("dealer2") is None
    assert assigned_dealers("T1") == ["dealer1"]


def test_ledger_verify_names_the_first_event_without_the_applications_seal(dealt_table):
    assert verify_chain().ok
    position = _forged_assignment()
    found = verify_chain()
    assert not found.ok
    assert found.first_bad_position == position
    assert found.checked == position - 1
    assert "carries no seal" in found.reason


def test_a_seal_made_with_another_key_is_not_the_applications(dealt_table):
    last = Event.objects.order_by("-position").first()
    # The forger seals with a key of his own: the seal has the right form, not the right key.
    position = _forged_assignment(seal=_seal_with("the forger's own key", "0" * 64))
    found = verify_chain()
    assert (found.ok, found.first_bad_position) == (False, position)
    assert "not the application's" in found.reason
    assert last.position == position - 1


def test_the_checkpoint_writer_does_not_sign_an_unsealed_head_and_readiness_says_so(dealt_table, settings):
    assert checkpoints.write_checkpoint() is not None
    position = _forged_assignment()
    assert checkpoints.write_checkpoint() is None
    assert checkpoints.latest_position() == position - 1
    failed = ChainVerification.objects.order_by("-id").first()
    assert (failed.ok, failed.first_bad_position) == (False, position)
    ready = Client().get("/api/health/ready")
    assert ready.status_code == 503
    assert ready.json()["checks"]["chain"]["ok"] is False


@pytest.mark.parametrize("size", [1, 3, 600])  # one event, a pipelined batch, COPY on PostgreSQL
def test_every_event_the_application_appends_is_sealed(size):
    events = [NewEvent("Tested", {"i": i}, [Leg("acct:a", 1), Leg("acct:b", -1)]) for i in range(size)]
    saved = store.append(stream="t/sealed", expected_version=0, actor="tester", events=events)
    rows = list(Event.objects.order_by("position").values_list("position", "hash", "seal"))
    assert len(rows) == size and all(len(seal) == 64 for _, _, seal in rows)
    assert [row[2] for row in rows] == [event.seal for event in saved]
    assert first_unsealed(Event.objects.order_by("position").values_list(*SEAL_FIELDS)) is None
    assert verify_chain().ok


def test_events_before_the_first_sealed_position_are_accepted_without_a_seal(dealt_table, settings):
    position = _forged_assignment()
    settings.LEDGER_EVENTS_SEALED_FROM = position + 1  # a ledger older than its seals
    assert verify_chain().ok
    settings.LEDGER_EVENTS_SEALED_FROM = position
    assert verify_chain().first_bad_position == position


def test_a_rotated_secret_key_keeps_the_older_seals_good_while_it_is_a_fallback(settings):
    store.append(stream="t/rotated", expected_version=0, actor="tester", events=[NewEvent("Tested", {"i": 0})])
    former = settings.SECRET_KEY
    settings.SECRET_KEY = "a-new-key-" + "x" * 50
    settings.SECRET_KEY_FALLBACKS = [former]
    assert verify_chain().ok
    settings.SECRET_KEY_FALLBACKS = []
    found = verify_chain()
    assert (found.ok, found.first_bad_position) == (False, 1)


def test_a_forged_self_limit_raise_is_named_by_the_replay_check(cage):
    """A forged ``SelfLimitSet`` (correct hash, no seal) with the live row raised to match: the
    self-limit replay check reads only the application's sealed events, so it names the row
    instead of vouching for the raised limit."""
    from patrons.models import SelfLimit
    from patrons.services.self_limit import check_self_limits
    from tests.conftest import make_patron, set_self_limit

    patron = make_patron()
    set_self_limit(patron, 10_000)
    assert check_self_limits() == []
    week = SelfLimit.objects.get(pk=patron).week_start
    data = {
        "patron": patron,
        "max_bet_cents": 1_000_000,
        "week_start": week.isoformat(),
        "effective_from": week.isoformat(),
    }
    forge("SelfLimitSet", data, f"patron/{patron}")
    SelfLimit.objects.filter(pk=patron).update(max_bet_cents=1_000_000)
    assert {(d.id, d.field, d.live, d.replayed) for d in check_self_limits()} == {
        (patron, "max_bet_cents", 1_000_000, 10_000)
    }
