"""Fixtures the API tests share."""

import pytest

from games.services.bets import bet_place
from games.services.rounds import round_close_bets, round_open, round_record_result
from ledger import projections
from tests.conftest import ACTOR, make_patron


@pytest.fixture
def played(table):
    """One coup at R1: 20 EUR on noir (value chips), ball on 2 (black): the patron wins 20;
    projections caught up. Returns ``(patron code, coup id)``."""
    code = make_patron(100_000)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet_place(
        round_id=coup, patron=code, stake_cents=2_000, bet={"type": "chance_simple", "chance": "noir"}, actor=ACTOR
    )
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=2, actor=ACTOR)
    projections.catch_up_all()
    return code, coup
