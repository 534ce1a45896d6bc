"""A coup is voided with a reason a person wrote: a JSON number, boolean, list or null is
refused naming ``reason`` (DRF's plain CharField stored -1 as "-1"), and the coup stays in play."""

import pytest

from games.models import Round
from games.services.rounds import round_open
from tests.conftest import ACTOR, client_as, staff_user

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("reason", [-1, True, 3.5, ["misdeal"], None])
def test_a_reason_that_is_not_text_is_refused_and_the_coup_stays_open(table, reason):
    coup = round_open(table="R1", actor=ACTOR)["round"]
    boss = client_as(staff_user("pit9", "pit_boss"))
    response = boss.post(f"/api/rounds/{coup}/void", {"reason": reason}, format="json")
    assert (response.status_code, response.json()["field"]) == (400, "reason")
    assert Round.objects.get(pk=coup).state == "betting"
    assert boss.post(f"/api/rounds/{coup}/void", {"reason": "misdeal"}, format="json").status_code == 200
