"""A dealer signs only for the table he is assigned to: someone holding the application's
database credentials who moves an assignment to another table, revives an ended one, inserts
one no event made or deletes one, with raw SQL around the services, is named by ``manage.py
ledger verify`` (the dealer and the field) and counted by ``casino_identity_mismatches``.
Assignments made, moved, released and ended by a leaver through the services verify intact.
"""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from games.services.tables import table_open
from ledger import identity
from ledger.store import NewEvent
from staff.models import DealerAssignment
from staff.services import (
    ASSIGNMENTS_STREAM,
    _append_outside_command,
    dealer_assign,
    dealer_release,
    staff_account_create,
    staff_leave,
)
from tests.api.test_operations_metrics import scrape, value
from tests.conftest import ACTOR
from tests.integration.test_identity_changed_with_raw_sql_is_reported import _sql, _verify

pytestmark = pytest.mark.django_db


@pytest.fixture
def floor(table):
    """Tables R1 and R2; dealer1 worked R1 and was released, dealer2 works R2 after R1, all
    through the services."""
    table_open(code="R2", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={})
    staff_account_create(username="pit1", roles=["pit_boss"], actor="manage.py")
    staff_account_create(username="adm1", roles=["admin"], actor="manage.py")
    staff_account_create(username="adm2", roles=["admin"], actor="manage.py")
    for dealer in ("dealer1", "dealer2", "dealer3"):
        staff_account_create(username=dealer, roles=["dealer"], actor="manage.py")
    dealer_assign(dealer="dealer1", table="R1", actor="pit1")
    dealer_release(dealer="dealer1", actor="pit1")
    dealer_assign(dealer="dealer2", table="R1", actor="pit1")
    dealer_assign(dealer="dealer2", table="R2", actor="pit1")
    dealer_assign(dealer="dealer3", table="R1", actor="pit1")
    staff_leave(username="dealer3", actor="adm1", approver="adm2")


def _found() -> list[tuple[str, str, str]]:
    return [(m.kind, m.id, m.field) for m in identity.mismatches()]


def test_assignments_made_and_ended_through_the_services_verify_intact(floor):
    ok, text = _verify()
    assert ok, text
    assert _found() == []
    assert DealerAssignment.objects.count() == 4 and DealerAssignment.objects.filter(ended_at__isnull=True).count() == 1


def test_an_assignment_moved_to_another_table_is_named_with_the_dealer_and_the_field(floor):
    pk = DealerAssignment.objects.get(dealer__username="dealer2", ended_at__isnull=True).pk
    _sql("UPDATE staff_dealerassignment SET table_code = 'R1' WHERE id = %s", [pk])
    ok, text = _verify()
    assert not ok
    assert f"dealer assignment dealer2 at R2 (#{pk}): table_code differs from the ledger's identity events" in text
    assert _found() == [("dealer assignment", f"dealer2 at R2 (#{pk})", "table_code")]


def test_an_assignment_given_to_another_dealer_is_named(floor):
    pk = DealerAssignment.objects.get(dealer__username="dealer2", ended_at__isnull=True).pk
    _sql("UPDATE staff_dealerassignment SET dealer_id = (SELECT id FROM auth_user WHERE username = 'dealer1')")
    assert ("dealer assignment", f"dealer2 at R2 (#{pk})", "dealer") in _found()
    assert not _verify()[0]


def test_an_ended_assignment_revived_is_named(floor):
    pk = DealerAssignment.objects.get(dealer__username="dealer1").pk
    _sql("UPDATE staff_dealerassignment SET ended_at = NULL, ended_by = '' WHERE id = %s", [pk])
    ok, text = _verify()
    assert not ok
    assert f"dealer assignment dealer1 at R1 (#{pk}): ended_at differs from the ledger's identity events" in text
    assert _found() == [
        ("dealer assignment", f"dealer1 at R1 (#{pk})", "ended_by"),
        ("dealer assignment", f"dealer1 at R1 (#{pk})", "ended_at"),
    ]


def test_an_ended_assignment_whose_end_is_moved_is_named(floor):
    row = DealerAssignment.objects.get(dealer__username="dealer3")
    pk = row.pk
    _sql("UPDATE staff_dealerassignment SET ended_at = %s WHERE id = %s", [row.ended_at + timedelta(hours=2), pk])
    assert _found() == [("dealer assignment", f"dealer3 at R1 (#{pk})", "ended_at")]


def test_an_assignment_inserted_with_raw_sql_is_named(floor):
    _sql(
        "INSERT INTO staff_dealerassignment (dealer_id, table_code, started_at, assigned_by, ended_by) "
        "SELECT id, 'R1', %s, 'pit1', '' FROM auth_user WHERE username = 'dealer1'",
        [timezone.now()],
    )
    pk = DealerAssignment.objects.get(dealer__username="dealer1", ended_at__isnull=True).pk
    ok, text = _verify()
    assert not ok
    assert f"dealer assignment dealer1 at R1 (#{pk}): exists, but no identity event in the ledger created it" in text
    assert _found() == [("dealer assignment", f"dealer1 at R1 (#{pk})", "(no event)")]


def test_an_assignment_deleted_with_raw_sql_is_named(floor):
    pk = DealerAssignment.objects.get(dealer__username="dealer2", ended_at__isnull=True).pk
    _sql("DELETE FROM staff_dealerassignment WHERE id = %s", [pk])
    ok, text = _verify()
    assert not ok
    assert f"dealer assignment dealer2 at R2 (#{pk}): the ledger's identity events created it, but its row is gone" in (
        text
    )
    assert _found() == [("dealer assignment", f"dealer2 at R2 (#{pk})", "(no row)")]


def test_the_metrics_gauge_counts_a_planted_assignment(floor, settings):
    settings.METRICS_ALLOWED_IPS = ["127.0.0.1"]
    assert value(scrape(), "casino_identity_mismatches") == 0
    _sql("UPDATE staff_dealerassignment SET table_code = 'R1' WHERE ended_at IS NULL")
    assert value(scrape(), "casino_identity_mismatches") == 1


def _assigned_as_before_the_ids(dealer: str, table: str) -> None:
    """What ``dealer_assign`` did before its event named the row and its times."""
    with transaction.atomic():
        DealerAssignment.objects.filter(dealer__username=dealer, ended_at__isnull=True).update(
            ended_at=timezone.now(), ended_by="pit1"
        )
        user = get_user_model().objects.get(username=dealer)
        DealerAssignment.objects.create(dealer=user, table_code=table, assigned_by="pit1")
        data = {"dealer": dealer, "table": table, "before": None, "after": table}
        _append_outside_command(ASSIGNMENTS_STREAM, NewEvent(type="DealerAssigned", data=data), actor="pit1")


def test_assignments_recorded_before_their_ids_and_times_are_paired_in_order(floor):
    # Each dealer's rows no event names are paired with his older assignments in the order
    # both were made; what those events never said (the times) is not compared.
    staff_account_create(username="dealer4", roles=["dealer"], actor="manage.py")
    _assigned_as_before_the_ids("dealer4", "R1")
    _assigned_as_before_the_ids("dealer4", "R2")
    dealer_release(dealer="dealer4", actor="pit1")
    assert _found() == []
    first, second = DealerAssignment.objects.filter(dealer__username="dealer4").order_by("id")
    hour = timedelta(hours=1)
    _sql("UPDATE staff_dealerassignment SET started_at = %s WHERE id = %s", [first.started_at - hour, first.pk])
    _sql("UPDATE staff_dealerassignment SET ended_at = %s WHERE id = %s", [first.ended_at + hour, first.pk])
    assert _found() == []
    _sql("UPDATE staff_dealerassignment SET ended_at = NULL WHERE id = %s", [first.pk])
    _sql("UPDATE staff_dealerassignment SET table_code = 'R2' WHERE id = %s", [first.pk])
    _sql("UPDATE staff_dealerassignment SET ended_at = %s WHERE id = %s", [second.ended_at + hour, second.pk])
    assert _found() == [
        ("dealer assignment", f"dealer4 at R1 (#{first.pk})", "table_code"),
        ("dealer assignment", f"dealer4 at R1 (#{first.pk})", "ended_at"),
        ("dealer assignment", f"dealer4 at R2 (#{second.pk})", "ended_at"),
    ]
    _sql("DELETE FROM staff_dealerassignment WHERE id = %s", [second.pk])
    assert ("dealer assignment", "dealer4 at R2", "(no row)") in _found()


def test_a_dealers_authority_at_a_table_comes_from_the_events_not_the_row(floor):
    """Moving the row for one signature and back leaves nothing to find: so the row decides
    nothing. ``dealer2`` deals at R2 by the events, whatever the row says meanwhile."""
    from approvals.acts import _assigned_to
    from staff.services import assigned_dealers, assigned_table, dealer_table

    dealer2 = get_user_model().objects.get(username="dealer2")
    assert assigned_table("dealer2") == "R2" and assigned_dealers("R2") == ["dealer2"]
    _sql("UPDATE staff_dealerassignment SET table_code = 'R1' WHERE ended_at IS NULL")
    assert assigned_table("dealer2") == "R2" and dealer_table(dealer2) == "R2"
    assert not _assigned_to("dealer2", "R1") and _assigned_to("dealer2", "R2")
    assert assigned_dealers("R1") == []  # dealer1 released, dealer3 left: nobody, row or not
    _sql(
        "UPDATE staff_dealerassignment SET ended_at = NULL WHERE dealer_id IN "
        "(SELECT id FROM auth_user WHERE username IN ('dealer1', 'dealer3'))"
    )
    assert assigned_table("dealer1") is None and assigned_table("dealer3") is None
