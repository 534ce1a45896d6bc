"""Classic five-card stud: the players play each other; the house takes a rake of each pot.
Its maximum is the most a player puts in during a round (``games.services.table_limits``)."""

from ..rules.stud_table import ClassicStudTableRules
from .spec import GameSpec

# A page shows and takes each round's most in money; the rule set stores multiples of the base
# stake (``caps``).
STUD_ROUNDS = tuple(f"round_{n}_cap_cents" for n in range(1, 5))


def most_in_a_round(rules: dict) -> int:
    """A player's most in a round, in cents: the base stake × the largest cap (0 when unset)."""
    base, caps = rules.get("base_stake_cents"), rules.get("caps") or ()
    return base * max(caps) if type(base) is int and caps else 0


SPEC = GameSpec(
    code="classic_stud",
    name="Classic five-card stud",
    in_a_sentence="classic stud",
    rules=ClassicStudTableRules,
    minima=("base_stake_cents",),
    most_in_a_round=most_in_a_round,
    limit_labels=(
        ("base_stake_cents", "Base stake"),
        *((option, f"Most in round {n}") for n, option in enumerate(STUD_ROUNDS, start=1)),
    ),
)
