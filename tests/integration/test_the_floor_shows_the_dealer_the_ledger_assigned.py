"""The floor card names the dealer the sealed assignment events hold at the table: a dealer
assignment row planted with raw SQL (or the ORM, around the services) shows nowhere."""

import pytest
from django.utils import timezone

from dashboard import floor_reads
from games.models import Table
from ledger.gaming_day import current_gaming_day
from staff.models import DealerAssignment
from staff.services import dealer_assign
from tests.conftest import staff_user

pytestmark = pytest.mark.django_db


def _dealer_on_the_floor() -> str | None:
    table = Table.objects.get(code="R1")
    return floor_reads.table_reads([table], day=current_gaming_day(), now=timezone.now())["R1"]["dealer"]


def test_a_planted_assignment_row_names_no_dealer_on_the_floor(table):
    staff_user("dealer1", "dealer")
    staff_user("pit1", "pit_boss")
    planted = staff_user("runner9", "runner")
    dealer_assign(dealer="dealer1", table="R1", actor="pit1")
    assert _dealer_on_the_floor() == "dealer1"
    DealerAssignment.objects.filter(dealer__username="dealer1").update(ended_at=timezone.now(), ended_by="x")
    DealerAssignment.objects.create(dealer=planted, table_code="R1", assigned_by="pit1")
    assert _dealer_on_the_floor() == "dealer1"
