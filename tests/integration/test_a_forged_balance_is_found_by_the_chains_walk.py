"""A balance row forged with a raw UPDATE (the owner's role may write the projections) passed
the chain's walk and readiness: nothing covers a projection with a hash. The scheduled walk and
``ledger verify`` now sum the postings against the balances and say which differ: the
verification is recorded as a fault (banner, readiness 503, the auditor's page)."""

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.db.models import F
from django.test import Client

from cashier.services.cage import chips_purchase
from ledger import health, projections, verification_records
from ledger.models import AccountBalance
from ledger.verify import verify_and_record
from tests.conftest import ACTOR

pytestmark = pytest.mark.django_db


def test_a_balance_forged_beside_its_postings_fails_the_walk_readiness_and_ledger_verify(patron):
    chips_purchase(patron=patron, amount_cents=10_000, actor=ACTOR)
    projections.catch_up_all()
    assert verify_and_record().ok

    AccountBalance.objects.filter(account="cage:cash").update(balance_cents=F("balance_cents") + 100_000_000)

    walked = verify_and_record()
    assert walked.ok is False and walked.first_bad_position is None
    booked = AccountBalance.objects.get(account="cage:cash").balance_cents
    assert walked.reason == (
        "the chain is whole, but the state differs from the events: balances DIFFER FROM THE POSTINGS: "
        f"account balance cage:cash EUR: balance_cents is {booked} live but {booked - 100_000_000} from the events"
    )
    assert health.chain()["error"] == health.BALANCES_DIFFER
    assert Client().get("/api/health/ready").status_code == 503
    with pytest.raises(CommandError, match="balances DIFFER FROM THE POSTINGS: account balance cage:cash EUR"):
        call_command("ledger", "verify")
    # The command records what it found, never "intact" over it (it once cleared the alarm).
    latest = verification_records.latest()
    assert (latest.ok, latest.reason) == (False, walked.reason)
    assert Client().get("/api/health/ready").status_code == 503


def test_an_account_changed_with_raw_sql_fails_the_scheduled_walk_too(patron, django_user_model):
    """A colleague's password set with raw SQL locks him out; the command-line verify alone
    said so, while readiness and the auditor's page said intact."""
    from staff.services import staff_account_create

    staff_account_create(username="pit7", roles=["pit_boss"], actor="manage.py")
    projections.catch_up_all()
    assert verify_and_record().ok
    django_user_model.objects.filter(username="pit7").update(password="pbkdf2_sha256$1$forged$forged")
    walked = verify_and_record()
    assert walked.ok is False
    assert "identity CHANGED OUTSIDE THE LEDGER: staff account pit7" in walked.reason
    assert Client().get("/api/health/ready").status_code == 503


@pytest.mark.postgres
def test_audit_lines_deleted_or_changed_beside_their_events_fail_the_walk_and_replay_check(patron):
    """Deleting a patron's audit lines hid his events from the auditor's patron trail while
    every check said nothing."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: the audit check is the projector's own SQL rule")
    from ledger.models import AuditEntry
    from ledger.replay import replay_check

    chips_purchase(patron=patron, amount_cents=10_000, actor=ACTOR)
    projections.catch_up_all()
    assert verify_and_record().ok
    lines = list(AuditEntry.objects.filter(patron=patron).order_by("position").values_list("position", flat=True))
    assert lines
    AuditEntry.objects.filter(position=lines[0]).delete()
    AuditEntry.objects.filter(position=lines[-1]).update(patron="P99999")

    walked = verify_and_record()
    assert walked.ok is False
    assert f"audit trail DIFFERS FROM THE EVENTS: audit line {lines[0]}: (object) is 'missing'" in walked.reason
    assert f"audit line {lines[-1]}: keys, type or hash is 'changed'" in walked.reason
    assert [str(d) for d in replay_check() if d.kind == "audit line"] == [
        f"audit line {lines[0]}: (object) is 'missing' live but 'has events' from the events",
        f"audit line {lines[-1]}: keys, type or hash is 'changed' live but \"its event's\" from the events",
    ]
