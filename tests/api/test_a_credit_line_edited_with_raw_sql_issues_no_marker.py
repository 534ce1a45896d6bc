"""A marker is issued against the credit line the cage supervisor approved (its sealed
``CreditLineApproved``), not against the ``cashier_creditline`` row: a limit raised in the row with
SQL issues nothing (409 naming the disagreement), and the row set back issues again."""

import pytest
from django.db import connection

from cashier.services.credit import approved_limit_cents, credit_line_set
from ledger import store

from .test_markers_and_front_money import desk  # noqa: F401

pytestmark = pytest.mark.django_db


def _row_limit(patron: str, cents: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE cashier_creditline SET limit_cents = %s"
            " WHERE patron_id = (SELECT id FROM cashier_patron WHERE code = %s)",
            [cents, patron],
        )


def test_a_limit_raised_in_the_row_with_sql_issues_no_marker(desk):  # noqa: F811
    p = desk["patron"]
    credit_line_set(patron=p, limit_cents=500_000, actor="super1")
    assert approved_limit_cents(p) == 500_000
    _row_limit(p, 100_000_000)
    head = store.head()
    marker = {"amount_cents": 2_000_000, "table": "R1"}
    refused = desk["pit"].post(f"/api/patrons/{p}/markers", marker, format="json")
    assert (refused.status_code, refused.json()["field"]) == (409, "patron")
    assert (
        "differs from its ledger events: 5,000.00 EUR approved, 1,000,000.00 EUR on its row" in refused.json()["detail"]
    )
    assert store.head() == head
    _row_limit(p, 500_000)
    over = desk["pit"].post(f"/api/patrons/{p}/markers", marker, format="json")
    assert over.status_code == 409 and "remaining credit of 5,000.00 EUR" in over.json()["detail"]
    assert (
        desk["pit"].post(f"/api/patrons/{p}/markers", {**marker, "amount_cents": 100_000}, format="json").status_code
        == 201
    )
