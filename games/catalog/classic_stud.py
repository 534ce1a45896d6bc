"""Classic five-card stud: the players play each other; the house takes a rake of each pot.
Its maximum is the most a player puts in during a round (``games.services.table_limits``)."""

from decimal import Decimal
from fractions import Fraction

from basis.errors import RuleError
from basis.money import currency, format_amount, format_cents

from ..rules.bet_variance import rake_line_variance
from ..rules.coups import classic_stud_coup
from ..rules.house_edges import classic_stud_table_edge, no_bets_without_edge
from ..rules.stud_table import ClassicStudTableRules
from .spec import GameSpec

# A page shows and takes each round's most in money; the rule set stores multiples of the base
# stake (``caps``).
STUD_ROUNDS = tuple(f"round_{n}_cap_cents" for n in range(1, 5))


def most_in_a_round(rules: dict) -> int:
    """A player's most in a round, in cents: the base stake × the largest cap (0 when unset)."""
    base, caps = rules.get("base_stake_cents"), rules.get("caps") or ()
    return base * max(caps) if type(base) is int and caps else 0


def limit_kinds(rules: dict) -> list[dict]:
    """The bets in a round as the engine applies them (``StudRules``, RULES.md §Classic
    five-card stud, defaults for options the table left out): from the base stake to the most a
    player puts in during the last round, each round's cap in the note. A rule set the engine
    refuses shows no limits (the table cannot deal either)."""
    try:
        game = ClassicStudTableRules.from_dict(rules).game
    except RuleError:
        return [{"kind": "bets in a round", "min_cents": None, "max_cents": None, "note": "rule set not readable"}]
    caps = [game.cap_cents(n) for n in range(1, len(game.caps) + 1)]
    by_round = ", ".join(f"round {n} up to {format_cents(cap)}" for n, cap in enumerate(caps, start=1))
    ante = f"; ante {format_cents(game.base_stake_cents)}" if game.ante else ""
    return [
        {"kind": "bets in a round", "min_cents": game.base_stake_cents, "max_cents": max(caps), "note": by_round + ante}
    ]


def rake_pct(rules: dict | None) -> Fraction:
    """The table's rake in % of each pot (``rake_pct``: a number or a fraction's text, as
    ``StudRules.to_dict`` writes it); 0 when unset or unreadable."""
    rules = rules or {}
    try:
        return Fraction(str(rules.get("rake_percent") or rules.get("rake_pct") or 0))
    except (ValueError, ZeroDivisionError):
        return Fraction(0)


def pct_figure(pct: Fraction) -> str:
    """A percentage as a person writes it: ``5``, ``2.5`` (not ``5/2``)."""
    return format((Decimal(pct.numerator) / Decimal(pct.denominator)).normalize(), "f")


def edge_words(rules: dict) -> dict[str, str]:
    """The rake: the players play each other."""
    cap = rules.get("rake_cap_cents")
    short = f"rake {pct_figure(rake_pct(rules))} % of each pot"
    if isinstance(cap, int) and not isinstance(cap, bool):
        short += f", at most {format_amount(cap)} {currency()} a hand"
    return {"short": short, "source": "the players play each other: the house's theory is the rake it takes"}


SPEC = GameSpec(
    line_variance=rake_line_variance,
    describe_coup=classic_stud_coup,
    house_edge=classic_stud_table_edge,
    bets_without_edge=no_bets_without_edge,
    code="classic_stud",
    name="Classic five-card stud",
    in_a_sentence="classic stud",
    rules=ClassicStudTableRules,
    minima=("base_stake_cents",),
    most_in_a_round=most_in_a_round,
    limit_kinds=limit_kinds,
    theory_on="rake",
    edge_words=edge_words,
    limit_labels=(
        ("base_stake_cents", "Base stake"),
        *((option, f"Most in round {n}") for n, option in enumerate(STUD_ROUNDS, start=1)),
    ),
)
