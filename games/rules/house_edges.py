"""The house edge of a table's rule set, one figure per table with its basis.

One function per game, ``<game>_table_edge(rules) -> (edge, basis)``, which the game's spec
names (``games.catalog``; ``games.theory.house_edge(game, rules)`` asks it): ``edge`` is a :class:`~decimal.Decimal`
fraction of the stake the house keeps on average (``Decimal("0.027027")`` = 2.7027 %),
``basis`` says how it was found and on which bet. Used by the table statistics, the table
page and the floor's theory; the per-bet edges the engines write into ``BetSettled`` (what
the ratings sum) are the same figures, bet by bet. Computed once per rule set (cached) from
the stored exact odds of every shoe the tables accept (``games.rules.shoe_odds``) and the
black jack rule sets kept ahead (``blackjack_edge.KNOWN_EDGES``): no request waits for an
enumeration, but for a black jack rule set not kept ahead (about 1.4 s of CPU, once).

Per game:

- English roulette: 1/37 on every bet (:func:`games.rules.roulette.house_edge`); the even
  chances' own edge (la partage 1/74, en prison 19/1369 or 1/74) is named in the basis.
- Baccarat: the banker bet's exact edge (:func:`games.rules.baccarat.house_edge`), player and
  tie named in the basis.
- Black jack: :func:`games.rules.blackjack_edge.blackjack_edge`, exact analysis of the rules.
- Trente-et-quarante: exact from :func:`games.rules.trente_quarante.exact_probabilities`: a
  bet is void on a refait and goes to prison on an après (the table's ``double_prison``), so
  per coup played the house keeps P(après) × (1 − V), V the value of a bet in prison:
  ``lose``: V = P(win) / (1 − P(refait)); ``stay``: V = 1/2; ``deeper``: V by iteration.
- Caribbean stud: per ante, under the product's strategy (raise with a pair or better or
  ace-king), exact by enumeration of every player hand against every dealer hand
  (:func:`games.rules.caribbean_edge.caribbean_exact_edge`, for the table's pay table and
  raise multiple): 4.0841 % (sheet) and 5.6820 % (common, the Wizard of Odds' "raise on any
  ace/king or better" figure to its last digit); the published optimal-strategy figure for
  the common table, 5.224 %, needs the dealer's up card to decide ace-king hands.
- Classic stud: 0: the players play each other; the house's take is the rake actually taken,
  which the engine's lines carry hand by hand (``games.services.classic_stud``).

Pure: no Django.
"""

from decimal import Decimal
from fractions import Fraction
from typing import Any

from basis.errors import RuleError

from . import baccarat, roulette
from .blackjack_edge import blackjack_edge, blackjack_edge_basis
from .blackjack_table import BlackjackTableRules
from .caribbean_edge import caribbean_exact_edge
from .caribbean_stud import PAY_TABLES
from .prison import PrisonRules
from .roulette import DoublePrison, ZeroRule
from .stud_table import CaribbeanTableRules
from .trente_quarante import APRES, NOIR, REFAIT, ROUGE, exact_probabilities

__all__ = [
    "baccarat_bets_without_edge",
    "baccarat_table_edge",
    "blackjack_bets_without_edge",
    "blackjack_table_edge",
    "caribbean_edge",
    "caribbean_line_edge",
    "caribbean_table_edge",
    "classic_stud_table_edge",
    "freeze",
    "no_bets_without_edge",
    "roulette_table_edge",
    "thaw",
    "tq_edge",
    "tq_line_edge",
    "tq_table_edge",
]

_PLACES = Decimal("0.000001")

CARIBBEAN_PUBLISHED_COMMON = Decimal("0.05224")  # optimal strategy, Wizard of Odds


def _decimal(value: Fraction | float) -> Decimal:
    if isinstance(value, Fraction):
        return (Decimal(value.numerator) / Decimal(value.denominator)).quantize(_PLACES)
    return Decimal(value).quantize(_PLACES)


def _pct(value: Fraction | Decimal) -> str:
    return f"{float(value) * 100:.4f} %"


def tq_edge(prison: PrisonRules, decks: int = 6) -> Fraction | float:
    """The house's take per unit staked on rouge, noir, couleur or inverse, per coup played
    (refaits included as void coups). Exact Fraction for ``lose`` and ``stay``; a float for
    ``deeper`` (the value of a bet in prison is then the limit of an iteration)."""
    p = exact_probabilities(decks)
    win, refait, apres = p[NOIR], p[REFAIT], p[APRES]
    assert p[NOIR] == p[ROUGE]
    if prison.double_prison is DoublePrison.LOSE:
        value: Fraction | float = win / (1 - refait)
    elif prison.double_prison is DoublePrison.STAY:
        value = Fraction(1, 2)
    else:
        # deeper: level n is released to n-1 on a win, lost on a loss, n+1 on an après;
        # V_1 = (w + a·V_1·V_1)/(1 − r): the value is the root below 1 of a·V² − (1−r)·V + w.
        a, b, c = float(apres), -float(1 - refait), float(win)
        value = (-b - (b * b - 4 * a * c) ** 0.5) / (2 * a)
    return apres * (1 - value)


def caribbean_edge(pay_table: str, raise_multiple: int = 2) -> Decimal:
    """The exact house edge per ante (to 6 places) for ``pay_table`` (``"sheet"`` or
    ``"common"``) and the raise as ``raise_multiple`` × the ante."""
    if pay_table not in PAY_TABLES:
        raise RuleError("rules.pay_table", f"no edge known for pay table {pay_table!r}")
    return _decimal(caribbean_exact_edge(pay_table, raise_multiple)[0])


def roulette_table_edge(rules: dict[str, Any]) -> tuple[Decimal, str]:
    """English roulette's ``(edge, basis)``: 1/37 on every bet, the even chances' own edge
    under the table's zero rule named in the basis."""
    zero = ZeroRule(rules.get("zero_rule", ZeroRule.LA_PARTAGE))
    double = DoublePrison(rules.get("double_prison", DoublePrison.LOSE))
    numbers = roulette.house_edge(roulette.make_bet("plein", numbers=[17]), zero)
    if zero is ZeroRule.EN_PRISON and double is DoublePrison.DEEPER:
        chances = "en prison, deeper: not a closed form"
    else:
        even = roulette.house_edge(roulette.make_bet("chance_simple", chance="rouge"), zero, double_prison=double)
        chances = f"{_pct(even)} ({even}) on the even chances under {zero.value}"
    return _decimal(numbers), f"exact: 1/37 = {_pct(numbers)} on every bet, {chances}; per unit staked"


def baccarat_table_edge(rules: dict[str, Any]) -> tuple[Decimal, str]:
    """Punto banco's ``(edge, basis)``: the banker bet's exact edge, player and tie named."""
    options = baccarat.BaccaratRules.from_dict(rules)
    banker, player, tie = (baccarat.house_edge(b, options) for b in ("banker", "player", "tie"))
    return _decimal(banker), (
        f"exact from the shoe ({options.decks} decks): banker {_pct(banker)}, player {_pct(player)}, "
        f"tie {_pct(tie)}; the banker bet's edge, per unit staked"
    )


def blackjack_table_edge(rules: dict[str, Any]) -> tuple[Decimal, str]:
    """Black jack's ``(edge, basis)``: the ``house_edge`` option when the table sets one, else
    the exact analysis of its rules; per initial bet."""
    table = BlackjackTableRules.from_dict(rules)
    if table.house_edge_set:
        return _decimal(table.house_edge), "set by the table's rules (house_edge option); per initial bet"
    return blackjack_edge(table.game), blackjack_edge_basis(table.game)


def tq_table_edge(rules: dict[str, Any]) -> tuple[Decimal, str]:
    """Trente-et-quarante's ``(edge, basis)``: exact from the shoe, per coup played."""
    prison = PrisonRules.from_dict(rules)
    decks = rules.get("decks", 6)
    edge = tq_edge(prison, decks)
    return _decimal(edge), (
        f"exact from the shoe ({decks} decks): après {_pct(exact_probabilities(decks)[APRES])}, bet in prison, "
        f"double prison {prison.double_prison.value}; per unit staked on rouge, noir, couleur or inverse, "
        "per coup played (refaits void)"
    )


def caribbean_table_edge(rules: dict[str, Any]) -> tuple[Decimal, str]:
    """Caribbean stud's ``(edge, basis)``: exact per ante, every player hand against every
    dealer hand, for the table's pay table and raise multiple."""
    options = CaribbeanTableRules.from_dict(rules).game
    per_ante, per_total = caribbean_exact_edge(options.pay_table, options.raise_multiple)
    published = (
        f"; published perfect-strategy edge {_pct(CARIBBEAN_PUBLISHED_COMMON)} (Wizard of Odds)"
        if options.pay_table == "common"
        else ""
    )
    return _decimal(per_ante), (
        f"exact, every player hand against every dealer hand: {_pct(per_ante)} of the ante, {_pct(per_total)} of "
        f"the total bet, pay table {options.pay_table!r}, raise {options.raise_multiple} × the ante, raising with "
        f"a pair or better or ace-king{published}; per ante"
    )


def classic_stud_table_edge(rules: dict[str, Any]) -> tuple[Decimal, str]:
    """Classic stud's ``(0, basis)``: the players play each other, the house takes the rake."""
    return Decimal("0.000000"), "players play each other: the house takes the rake, theory = rake actually taken"


def tq_line_edge(rules: dict[str, Any] | None, line: str | None = None) -> str:
    """The edge trente-et-quarante's service writes into each ``BetSettled`` (to 9 decimal
    places): a bet that goes to prison has no ``BetSettled`` of its own (its release or loss is
    another event), so the per-bet edge is spread over the lines that are settled:
    edge / (1 − P(après)), and Σ stake × edge over the lines is the edge of every bet placed."""
    prison = PrisonRules.from_dict(rules or {})
    decks = (rules or {}).get("decks", 6)
    edge = tq_edge(prison, decks) / (1 - exact_probabilities(decks)[APRES])
    # to 1e-9 of the stake: the exact fraction's terms run to hundreds of digits, and the
    # ratings keep Σ stake × edge as a fraction of cents in 80 characters
    if isinstance(edge, Fraction):
        edge = Decimal(edge.numerator) / Decimal(edge.denominator)
    return str(Decimal(edge).quantize(Decimal("0.000000001")))


def caribbean_line_edge(rules: dict[str, Any] | None, line: str | None = None) -> str:
    """The edge Caribbean stud's service writes into each ``BetSettled``: the ante line carries
    the edge per ante, the raise line 0."""
    if line != "ante":
        return "0"
    return str(caribbean_edge((rules or {}).get("pay_table", "sheet"), (rules or {}).get("raise_multiple", 2)))


def no_bets_without_edge(rules: dict[str, Any]) -> list[tuple[str, Fraction | Decimal]]:
    """Classic stud: none, the house is no party to the pot."""
    return []


def baccarat_bets_without_edge(rules: dict[str, Any]) -> list[tuple[str, Fraction | Decimal]]:
    """Each of banker, player and tie whose exact edge is ≤ 0 (e.g. the banker paid 1:1,
    ``banker_commission_pct`` 0: ``[("banker", −1.2351 %)]``)."""
    options = baccarat.BaccaratRules.from_dict(rules or {})
    edges = [(bet, baccarat.house_edge(bet, options)) for bet in ("banker", "player", "tie")]
    return [(bet, edge) for bet, edge in edges if edge <= 0]


def blackjack_bets_without_edge(rules: dict[str, Any]) -> list[tuple[str, Fraction | Decimal]]:
    """The rules' own edge per initial bet when ≤ 0: the ``house_edge`` option is a figure
    typed beside them (for the ratings), and a rule set paying a black jack 2:1 gives the
    player the advantage whatever edge is declared with it."""
    edge = blackjack_edge(BlackjackTableRules.from_dict(rules).game)
    return [("blackjack", edge)] if edge <= 0 else []


def freeze(value: Any) -> Any:
    """``value`` (a rule set as stored) as a hashable key, for a cache; ``thaw`` undoes it."""
    if isinstance(value, dict):
        return tuple(sorted((k, freeze(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("__list__", *(freeze(v) for v in value))
    return value


def thaw(value: Any) -> Any:
    """The rule set ``freeze`` made a key of."""
    if isinstance(value, tuple):
        if value and value[0] == "__list__":
            return [thaw(v) for v in value[1:]]
        return {k: thaw(v) for k, v in value}
    return value
