"""Fixtures shared by the integration tests."""

import pytest

from tests.conftest import CAGE_STAFF, open_counted_table, staff_clients


@pytest.fixture
def dealt_table(cage):
    """T1 open, dealer1 assigned to it; dealer2, a dealer assigned nowhere."""
    clients = staff_clients(CAGE_STAFF | {"dealer2": "dealer"})
    assert open_counted_table(clients, "T1").status_code == 201
    return clients
