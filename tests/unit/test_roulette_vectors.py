"""The roulette vectors of /work/shared/vectors/games.json against the pure engine.

Every key present in a vector's ``expected`` is compared exactly (vectors/README.md);
EUR amounts are converted to integer cents through Decimal, never float arithmetic.
"""

from typing import Any

import pytest

from games.rules.roulette import (
    DoublePrison,
    InvalidBet,
    ZeroRule,
    expand_announced,
    make_bet,
    settle,
)
from tests.vectors import cents, load, vectors_path


def _load() -> list:
    roulette = load("roulette")
    assert roulette, f"no roulette vector in {vectors_path()}"
    return [pytest.param(v, id=v["name"]) for v in roulette]


def _single_bet(inp: dict[str, Any]) -> dict[str, Any]:
    spec = inp["bet"]
    bet = make_bet(
        spec["type"],
        numbers=spec.get("numbers"),
        which=spec.get("which"),
        chance=spec.get("chance"),
    )
    s = settle(
        bet,
        cents(inp["stake_eur"]),
        inp["result"],
        zero_rule=ZeroRule(inp.get("zero_rule", ZeroRule.LA_PARTAGE)),
        prison_level=inp.get("prison_level", 0),
        double_prison=DoublePrison(inp.get("double_prison", DoublePrison.LOSE)),
    )
    return {
        "valid": True,
        "return_eur": s.return_cents,
        "prison_level_after": s.prison_level_after,
        "outcome": s.outcome.value,
        "winnings_eur": s.winnings_cents,
        "house_eur": s.house_cents,
    }


def _announce(inp: dict[str, Any]) -> dict[str, Any]:
    chip = cents(inp["stake_eur"])
    components = expand_announced(inp["announce"], chip_cents=chip)
    chips = sum(c for _, c in components)
    return {
        "valid": True,
        "chips": chips,
        "total_stake_eur": chips * chip,
        "numbers": sorted({n for bet, _ in components for n in bet.numbers}),
        "layout": [{**bet.to_dict(), "chips": c} for bet, c in components],
        "return_eur": sum(settle(bet, c * chip, inp["result"]).return_cents for bet, c in components),
    }


def _expected_in_cents(key: str, value: Any) -> Any:
    return cents(value) if key.endswith("_eur") else value


@pytest.mark.parametrize("vector", _load())
def test_roulette_vector(vector: dict[str, Any]) -> None:
    inp, expected = vector["input"], vector["expected"]
    run = _announce if "announce" in inp else _single_bet

    if expected.get("valid") is False:
        with pytest.raises(InvalidBet):
            run(inp)
        return

    actual = run(inp)
    for key, value in expected.items():
        assert key in actual, f"vector expects {key!r}, which this test cannot compute"
        assert actual[key] == _expected_in_cents(key, value), f"{key}: {vector.get('note', '')}"
