"""Single-zero roulette: layout geometry, settlement of one bet, announced bets.

Source: ``RULES.md §Roulette`` (pays, zero rules, announced bets) and ``RULES.md §Prison
bets`` (``en_prison`` and ``double_prison``). Money is integer cents; a payout that is not a
whole cent is rounded down and the fraction recorded (``RULES.md``, money paragraph).

Pure: no Django, no clock, no randomness. The spin result is an input.
"""

from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Any

from basis.errors import RuleError

__all__ = [
    "ANNOUNCED",
    "ANNOUNCE_OPTIONS",
    "BLACK",
    "FINALES_A_CHEVAL",
    "MORE_FINALES_OPTION",
    "RED",
    "WHEEL",
    "BetType",
    "Chance",
    "DoublePrison",
    "InvalidBet",
    "Outcome",
    "RouletteBet",
    "Settlement",
    "ZeroRule",
    "bet_kinds",
    "expand_announced",
    "house_edge",
    "make_bet",
    "neighbours_of",
    "settle",
]


class InvalidBet(RuleError):
    """A roulette bet, announce or spin input that the rules refuse (a :class:`RuleError`).

    ``field`` names the input at fault (``"numbers"``, ``"which"``, ``"chance"``, ``"type"``,
    ``"announce"``, ``"number"``, ``"neighbours"``, ``"chip_cents"``, ``"result"``,
    ``"stake_cents"``, ``"zero_rule"``, ``"double_prison"``, ``"prison_level"``).
    """


# --- the wheel and the colours (RULES.md §Roulette) -------------------------------------

WHEEL: tuple[int, ...] = (
    0, 32, 15, 19, 4, 21, 2, 25, 17, 34, 6, 27, 13, 36, 11, 30, 8, 23, 10,
    5, 24, 16, 33, 1, 20, 14, 31, 9, 22, 18, 29, 7, 28, 12, 35, 3, 26,
)  # fmt: skip
"""Pockets clockwise from 0, 37 entries (``RULES.md §Roulette``)."""

RED: frozenset[int] = frozenset((1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36))
BLACK: frozenset[int] = frozenset(range(1, 37)) - RED

_POSITION = {n: i for i, n in enumerate(WHEEL)}


class BetType(StrEnum):
    PLEIN = "plein"
    CHEVAL = "cheval"
    TRANSVERSALE = "transversale"
    CARRE = "carre"
    QUATRE_PREMIERS = "quatre_premiers"
    SIXAIN = "sixain"
    COLONNE = "colonne"
    DOUZAINE = "douzaine"
    COLONNE_A_CHEVAL = "colonne_a_cheval"
    DOUZAINE_A_CHEVAL = "douzaine_a_cheval"
    CHANCE_SIMPLE = "chance_simple"


class Chance(StrEnum):
    ROUGE = "rouge"
    NOIR = "noir"
    PAIR = "pair"
    IMPAIR = "impair"
    MANQUE = "manque"
    PASSE = "passe"


class ZeroRule(StrEnum):
    """What zero does to the even chances (table rule option ``zero_rule``)."""

    LA_PARTAGE = "la_partage"
    LOST = "lost"
    EN_PRISON = "en_prison"


class DoublePrison(StrEnum):
    """What a second zero does to an imprisoned bet (option ``double_prison``)."""

    LOSE = "lose"
    STAY = "stay"
    DEEPER = "deeper"


class Outcome(StrEnum):
    WON = "won"
    LOST = "lost"
    HALF_LOST = "half_lost"
    IMPRISONED = "imprisoned"
    RELEASED = "released"


# k in "k to 1", RULES.md §Roulette table.
_PAYOUT: dict[BetType, Fraction] = {
    BetType.PLEIN: Fraction(35),
    BetType.CHEVAL: Fraction(17),
    BetType.TRANSVERSALE: Fraction(11),
    BetType.CARRE: Fraction(8),
    BetType.QUATRE_PREMIERS: Fraction(8),
    BetType.SIXAIN: Fraction(5),
    BetType.COLONNE: Fraction(2),
    BetType.DOUZAINE: Fraction(2),
    BetType.COLONNE_A_CHEVAL: Fraction(1, 2),
    BetType.DOUZAINE_A_CHEVAL: Fraction(1, 2),
    BetType.CHANCE_SIMPLE: Fraction(1),
}

# --- layout geometry -------------------------------------------------------------------
# Rows r = 0..11 are {3r+1, 3r+2, 3r+3}; columns c = 0..2 hold n with (n - 1) % 3 == c.
# Column 3 is 3 6 9 ... 36 (the sheet's copy of column 1 there is a typo, RULES.md).

_ROWS = tuple(tuple(range(3 * r + 1, 3 * r + 4)) for r in range(12))


def _column(c: int) -> tuple[int, ...]:
    return tuple(range(c + 1, 37, 3))


def _dozen(d: int) -> tuple[int, ...]:
    return tuple(range(12 * d + 1, 12 * d + 13))


_CHANCE_NUMBERS: dict[Chance, tuple[int, ...]] = {
    Chance.ROUGE: tuple(sorted(RED)),
    Chance.NOIR: tuple(sorted(BLACK)),
    Chance.PAIR: tuple(range(2, 37, 2)),
    Chance.IMPAIR: tuple(range(1, 37, 2)),
    # The sheet's text says manque is 1 to 17; its own list and RULES.md say 1-18.
    Chance.MANQUE: tuple(range(1, 19)),
    Chance.PASSE: tuple(range(19, 37)),
}

# Positions named by numbers alone, in bet_kinds() order.
_BY_NUMBERS: dict[BetType, tuple[tuple[int, ...], ...]] = {
    BetType.PLEIN: tuple((n,) for n in range(37)),
    BetType.CHEVAL: (
        tuple((n, n + 1) for row in _ROWS for n in row[:2])  # side by side in a row
        + tuple((n, n + 3) for n in range(1, 34))  # one above the other
        + ((0, 1), (0, 2), (0, 3))
    ),
    BetType.TRANSVERSALE: _ROWS + ((0, 1, 2), (0, 2, 3)),
    BetType.CARRE: tuple((n, n + 1, n + 3, n + 4) for n in range(1, 33) if (n - 1) % 3 != 2),
    BetType.QUATRE_PREMIERS: ((0, 1, 2, 3),),
    BetType.SIXAIN: tuple(_ROWS[r] + _ROWS[r + 1] for r in range(11)),
}

# Positions named by an index: type -> numbers covered for which = 0, 1, ...
_BY_WHICH: dict[BetType, tuple[tuple[int, ...], ...]] = {
    BetType.COLONNE: tuple(_column(c) for c in range(3)),
    BetType.DOUZAINE: tuple(_dozen(d) for d in range(3)),
    BetType.COLONNE_A_CHEVAL: tuple(tuple(sorted(_column(c) + _column(c + 1))) for c in range(2)),
    BetType.DOUZAINE_A_CHEVAL: tuple(_dozen(d) + _dozen(d + 1) for d in range(2)),
}

_SIZE = {t: len(v[0]) for t, v in _BY_NUMBERS.items()}

# What each numbers-type geometry means, for the refusal message.
_SHAPE = {
    BetType.PLEIN: "one number 0-36",
    BetType.CHEVAL: ("two numbers side by side on the layout: n and n+1 in one row, n and n+3, or 0 with 1, 2 or 3"),
    BetType.TRANSVERSALE: "a row of three (1-2-3 ... 34-35-36) or a trio 0-1-2 / 0-2-3",
    BetType.CARRE: "four numbers meeting at a point (a 2x2 block without 0)",
    BetType.QUATRE_PREMIERS: "0-1-2-3",
    BetType.SIXAIN: "two adjacent rows of three",
}

# Every legal (type, numbers, which, chance); RouletteBet refuses anything else.
_LEGAL: frozenset[tuple[BetType, tuple[int, ...], int | None, Chance | None]] = frozenset(
    [(t, nums, None, None) for t, all_nums in _BY_NUMBERS.items() for nums in all_nums]
    + [(t, nums, w, None) for t, by_w in _BY_WHICH.items() for w, nums in enumerate(by_w)]
    + [(BetType.CHANCE_SIMPLE, nums, None, c) for c, nums in _CHANCE_NUMBERS.items()]
)


def _is_int(value: object) -> bool:
    # bool is an int subclass; True must not stand for pocket 1.
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class RouletteBet:
    """One legal position on the single-zero layout (``RULES.md §Roulette``).

    ``numbers`` is the sorted tuple of the pockets covered, for every type (a douzaine
    covers 12, a chance simple 18). ``which`` indexes colonne/douzaine (0-2) and the
    à cheval variants (0-1); ``chance`` names the chance simple. Build with
    :func:`make_bet`; constructing an illegal position directly raises :class:`InvalidBet`.
    """

    type: BetType
    numbers: tuple[int, ...]
    which: int | None = None
    chance: Chance | None = None

    def __post_init__(self) -> None:
        # Coerce plain strings/lists so equality and hashing are canonical.
        try:
            object.__setattr__(self, "type", BetType(self.type))
        except ValueError:
            raise InvalidBet("type", f"unknown bet type {self.type!r}") from None
        if self.chance is not None:
            try:
                object.__setattr__(self, "chance", Chance(self.chance))
            except ValueError:
                raise InvalidBet("chance", f"unknown chance {self.chance!r}") from None
        object.__setattr__(self, "numbers", tuple(self.numbers))
        if not all(_is_int(n) for n in self.numbers):
            raise InvalidBet("numbers", "numbers must be integers")
        if self.which is not None and not _is_int(self.which):
            raise InvalidBet("which", "which must be an integer")
        if (self.type, self.numbers, self.which, self.chance) not in _LEGAL:
            raise InvalidBet("numbers", f"not a legal {self.type} position")

    @property
    def payout(self) -> Fraction:
        """k in "k to 1": 35, 17, 11, 8, 5, 2, 1/2 (à cheval) or 1 (chances simples)."""
        return _PAYOUT[self.type]

    @property
    def is_even_chance(self) -> bool:
        """True for the chances simples, the only bets zero_rule applies to."""
        return self.type is BetType.CHANCE_SIMPLE

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe ``{"type", "numbers"}`` plus ``"which"`` / ``"chance"`` when set.

        ``make_bet(**bet.to_dict()) == bet``.
        """
        out: dict[str, Any] = {"type": self.type.value, "numbers": list(self.numbers)}
        if self.which is not None:
            out["which"] = self.which
        if self.chance is not None:
            out["chance"] = self.chance.value
        return out


def _parse_numbers(numbers: Any) -> tuple[int, ...]:
    if isinstance(numbers, str | bytes) or not isinstance(numbers, list | tuple):
        raise InvalidBet("numbers", "must be a list of integers")
    for n in numbers:
        if not _is_int(n):
            raise InvalidBet("numbers", f"{n!r} is not an integer pocket")
        if not 0 <= n <= 36:
            raise InvalidBet("numbers", f"{n} is not on the layout (0-36)")
    if len(set(numbers)) != len(numbers):
        raise InvalidBet("numbers", "a number appears twice")
    return tuple(sorted(numbers))


def _refuse_extra(bet_type: BetType, **given: Any) -> None:
    for field, value in given.items():
        if value is not None:
            raise InvalidBet(field, f"{bet_type} takes no {field}")


def make_bet(
    type: str,
    *,
    numbers: list[int] | tuple[int, ...] | None = None,
    which: int | None = None,
    chance: str | None = None,
) -> RouletteBet:
    """Validate a player's position and return it as a :class:`RouletteBet`.

    ``type`` is a :class:`BetType` value. Inside bets give ``numbers`` (any order, ints
    0-36, no duplicates) that must form the layout shape of ``RULES.md §Roulette``; 0-1-2-3
    is ``quatre_premiers`` (numbers may be omitted), never a ``carre``. colonne/douzaine
    need ``which`` 0-2, the à cheval variants ``which`` 0-1, ``chance_simple`` a
    ``chance``; for these ``numbers`` may be omitted or must equal the numbers covered.

    Raises :class:`InvalidBet` with ``field`` "type", "numbers", "which" or "chance".
    """
    if not isinstance(type, str):
        raise InvalidBet("type", "must be a string")
    try:
        bet_type = BetType(type)
    except ValueError:
        allowed = ", ".join(t.value for t in BetType)
        raise InvalidBet("type", f"unknown bet type {type!r}; one of {allowed}") from None
    nums = None if numbers is None else _parse_numbers(numbers)

    if bet_type in _BY_NUMBERS:
        _refuse_extra(bet_type, which=which, chance=chance)
        if bet_type is BetType.QUATRE_PREMIERS and nums is None:
            nums = (0, 1, 2, 3)
        if nums is None:
            raise InvalidBet("numbers", f"{bet_type} needs numbers: {_SHAPE[bet_type]}")
        if len(nums) != _SIZE[bet_type]:
            raise InvalidBet(
                "numbers",
                f"{bet_type} covers {_SIZE[bet_type]} numbers, got {len(nums)}",
            )
        if nums not in _BY_NUMBERS[bet_type]:
            shown = "-".join(map(str, nums))
            if bet_type is BetType.CARRE and nums == (0, 1, 2, 3):
                raise InvalidBet("numbers", "0-1-2-3 is quatre_premiers, not a carre")
            raise InvalidBet("numbers", f"{shown} is not a {bet_type}: {_SHAPE[bet_type]}")
        return RouletteBet(bet_type, nums)

    if bet_type in _BY_WHICH:
        _refuse_extra(bet_type, chance=chance)
        count = len(_BY_WHICH[bet_type])
        if which is None or not _is_int(which) or not 0 <= which < count:
            raise InvalidBet("which", f"{bet_type} needs which = 0..{count - 1}")
        covered = _BY_WHICH[bet_type][which]
        if nums is not None and nums != covered:
            raise InvalidBet("numbers", f"{bet_type} {which} covers {list(covered)}")
        return RouletteBet(bet_type, covered, which=which)

    # chance simple
    _refuse_extra(bet_type, which=which)
    if chance is None:
        raise InvalidBet("chance", "chance_simple needs a chance")
    try:
        the_chance = Chance(chance) if isinstance(chance, str) else None
    except ValueError:
        the_chance = None
    if the_chance is None:
        allowed = ", ".join(c.value for c in Chance)
        raise InvalidBet("chance", f"unknown chance {chance!r}; one of {allowed}")
    covered = _CHANCE_NUMBERS[the_chance]
    if nums is not None and nums != covered:
        raise InvalidBet("numbers", f"{the_chance} covers {list(covered)}")
    return RouletteBet(bet_type, covered, chance=the_chance)


def bet_kinds() -> list[RouletteBet]:
    """Every legal single bet on the layout (161), grouped by type in BetType order."""
    return (
        [RouletteBet(t, nums) for t, all_nums in _BY_NUMBERS.items() for nums in all_nums]
        + [RouletteBet(t, nums, which=w) for t, by_w in _BY_WHICH.items() for w, nums in enumerate(by_w)]
        + [RouletteBet(BetType.CHANCE_SIMPLE, nums, chance=c) for c, nums in _CHANCE_NUMBERS.items()]
    )


# --- settlement ------------------------------------------------------------------------


@dataclass(frozen=True)
class Settlement:
    """The money result of one bet on one spin; every amount in integer cents.

    - ``return_cents``: back to the player (stake + winnings when won, the stake alone when
      released, ``floor(stake/2)`` when half lost, 0 when lost or imprisoned).
    - ``winnings_cents``: ``return_cents - stake_cents`` when won, else 0.
    - ``house_cents``: kept by the house from the stake (stake when lost,
      ``ceil(stake/2)`` when half lost, else 0). An imprisoned stake is neither returned
      nor kept: it stays on the layout.
    - ``unpaid_fraction``: the exact amount the rules owe minus ``return_cents`` (< 1 cent),
      recorded per ``RULES.md`` (round down, record it). On a win it is paid to nobody; on
      a half loss it is the half cent inside ``house_cents``. Usually 0.
    - ``prison_level_after``: 0 = settled, n >= 1 = still in prison at level n.
    """

    outcome: Outcome
    stake_cents: int
    return_cents: int
    winnings_cents: int
    house_cents: int
    unpaid_fraction: Fraction
    prison_level_after: int


def _won(stake: int, payout: Fraction) -> Settlement:
    exact = stake * payout
    winnings = exact.numerator // exact.denominator  # round down, RULES.md money rule
    return Settlement(Outcome.WON, stake, stake + winnings, winnings, 0, exact - winnings, 0)


def _lost(stake: int) -> Settlement:
    return Settlement(Outcome.LOST, stake, 0, 0, stake, Fraction(0), 0)


def _imprisoned(stake: int, level: int) -> Settlement:
    return Settlement(Outcome.IMPRISONED, stake, 0, 0, 0, Fraction(0), level)


def _enum(cls: type[StrEnum], value: Any, field: str) -> Any:
    try:
        return cls(value)
    except ValueError:
        allowed = ", ".join(m.value for m in cls)
        raise InvalidBet(field, f"unknown {field} {value!r}; one of {allowed}") from None


def settle(
    bet: RouletteBet,
    stake_cents: int,
    result: int,
    *,
    zero_rule: ZeroRule = ZeroRule.LA_PARTAGE,
    prison_level: int = 0,
    double_prison: DoublePrison = DoublePrison.LOSE,
) -> Settlement:
    """Settle ``stake_cents`` on ``bet`` when the ball lands on ``result`` (0-36).

    ``RULES.md §Roulette``: a covered result returns stake + floor(stake × k). Zero and the
    chances simples follow ``zero_rule``: ``la_partage`` half lost (the player gets
    floor(stake/2)), ``lost``, or ``en_prison`` (imprisoned at level 1).

    ``prison_level`` > 0 settles a chance simple already in prison (``RULES.md §Prison
    bets``, only with ``zero_rule=en_prison``): a win at level 1 is RELEASED (stake back, no
    winnings), at a higher level (``deeper`` only) it goes down a level; a losing number
    loses it; zero again applies ``double_prison``: ``lose`` loses it, ``stay`` keeps the
    level, ``deeper`` adds one.

    Raises :class:`InvalidBet`: field "result" (not an int 0-36), "stake_cents"
    (not an int > 0), "zero_rule", "double_prison", "prison_level".
    """
    if not isinstance(bet, RouletteBet):
        raise TypeError(f"bet must be a RouletteBet, got {bet!r}")
    if not _is_int(stake_cents) or stake_cents <= 0:
        raise InvalidBet("stake_cents", f"must be a positive integer, got {stake_cents!r}")
    if not _is_int(result) or not 0 <= result <= 36:
        raise InvalidBet("result", f"must be an integer 0-36, got {result!r}")
    zero_rule = _enum(ZeroRule, zero_rule, "zero_rule")
    double_prison = _enum(DoublePrison, double_prison, "double_prison")
    if not _is_int(prison_level) or prison_level < 0:
        raise InvalidBet("prison_level", f"must be an integer >= 0, got {prison_level!r}")

    covered = result in bet.numbers
    if prison_level == 0:
        if covered:
            return _won(stake_cents, bet.payout)
        if result != 0 or not bet.is_even_chance or zero_rule is ZeroRule.LOST:
            return _lost(stake_cents)
        if zero_rule is ZeroRule.EN_PRISON:
            return _imprisoned(stake_cents, 1)
        # la partage: the house keeps the odd cent, the player is owed exactly stake/2.
        returned = stake_cents // 2
        return Settlement(
            Outcome.HALF_LOST,
            stake_cents,
            returned,
            0,
            stake_cents - returned,
            Fraction(stake_cents, 2) - returned,
            0,
        )

    # The bet is in prison.
    if not bet.is_even_chance:
        raise InvalidBet("prison_level", "only chances simples go to prison")
    if zero_rule is not ZeroRule.EN_PRISON:
        raise InvalidBet("prison_level", "a bet is in prison only under en_prison")
    if prison_level > 1 and double_prison is not DoublePrison.DEEPER:
        raise InvalidBet("prison_level", "levels above 1 exist only with deeper")
    if covered:
        if prison_level == 1:
            return Settlement(Outcome.RELEASED, stake_cents, stake_cents, 0, 0, Fraction(0), 0)
        return _imprisoned(stake_cents, prison_level - 1)
    if result != 0 or double_prison is DoublePrison.LOSE:
        return _lost(stake_cents)
    if double_prison is DoublePrison.STAY:
        return _imprisoned(stake_cents, prison_level)
    return _imprisoned(stake_cents, prison_level + 1)


def _owed(s: Settlement) -> Fraction:
    # The exact amount the rules give back, before rounding down to the cent.
    return s.return_cents + s.unpaid_fraction


def house_edge(
    bet: RouletteBet,
    zero_rule: ZeroRule = ZeroRule.LA_PARTAGE,
    *,
    double_prison: DoublePrison = DoublePrison.LOSE,
) -> Fraction:
    """The house's exact expected take per unit staked, over all 37 equally likely results.

    Enumerates :func:`settle` on exact (unrounded) amounts: 1/37 for every bet, 1/74 for a
    chance simple under ``la_partage``. Under ``en_prison`` the imprisoned stake is followed
    until decided: 19/1369 with ``double_prison=lose``, 1/74 with ``stay``. ``deeper`` is
    refused with ValueError: its value is irrational (root of z·a² - a + p = 0).
    """
    stake = 1  # _owed() is exact, so any stake gives the same ratio

    def value(level: int) -> Fraction:
        # Expected exact return of the bet at `level`; a result that keeps it in prison at
        # the same level is a geometric repeat, V = settled / (37 - repeats).
        settled, repeats = Fraction(0), 0
        for result in range(37):
            s = settle(
                bet,
                stake,
                result,
                zero_rule=zero_rule,
                prison_level=level,
                double_prison=double_prison,
            )
            if s.outcome is not Outcome.IMPRISONED:
                settled += _owed(s)
            elif s.prison_level_after == level:
                repeats += 1
            elif level == 0:
                settled += value(s.prison_level_after)
            else:
                raise ValueError("house_edge is not rational under en_prison with double_prison=deeper")
        return settled / (37 - repeats)

    return 1 - value(0) / stake


# --- wheel neighbours and announced bets ------------------------------------------------


def neighbours_of(number: int, k: int = 2) -> tuple[int, ...]:
    """``number`` and its ``k`` wheel neighbours either side, in wheel order (2k+1 pockets).

    ``neighbours_of(0, 2) == (3, 26, 0, 32, 15)``. ``k`` is 0..18 (18 covers the wheel).
    Raises :class:`InvalidBet` (field "number" or "neighbours").
    """
    if not _is_int(number) or not 0 <= number <= 36:
        raise InvalidBet("number", f"must be an integer 0-36, got {number!r}")
    if not _is_int(k) or not 0 <= k <= 18:
        raise InvalidBet("neighbours", f"must be an integer 0-18, got {k!r}")
    i = _POSITION[number]
    return tuple(WHEEL[(i + j) % 37] for j in range(-k, k + 1))


def _pleins(numbers: tuple[int, ...]) -> tuple[tuple[RouletteBet, int], ...]:
    return tuple((RouletteBet(BetType.PLEIN, (n,)), 1) for n in numbers)


def _chevaux(pairs: tuple[tuple[int, int], ...]) -> tuple[tuple[RouletteBet, int], ...]:
    return tuple((RouletteBet(BetType.CHEVAL, p), 1) for p in pairs)


_ORPHELINS = (1, 6, 9, 14, 17, 20, 31, 34)


# The finales à cheval sheet 000 lists ("Finales 0-3 = 0-3, 10-13, 20-23, 30-33 … Finales 6-9 =
# 6-9, 16-19, 26-29"), and the three casinos commonly add, announced the same way
# ("finale 7-10" = 7-10, 17-20, 27-30), offered only under the table option below.
SHEET_FINALES_A_CHEVAL = ((0, 3), (1, 4), (2, 5), (3, 6), (6, 9))
MORE_FINALES_A_CHEVAL = ((7, 10), (8, 11), (9, 12))
MORE_FINALES_OPTION = "finales_a_cheval_7_10_8_11_9_12"


def _finale_a_cheval(a: int, b: int) -> tuple[tuple[RouletteBet, int], ...]:
    """Finale à cheval a-b (b = a + 3): one chip on each cheval n/n+3 of the layout whose n ends
    in a, and nothing else. As the sheet lists them, 6-9 is three chevaux (36 has no cheval
    36-39: it is not played), 0-3 to 3-6 four; 7-10, 8-11, 9-12 are three (0, 1, 2 not played)."""
    return _chevaux(tuple((n, n + 3) for n in range(a, 34, 10)))


FINALES_A_CHEVAL = {(a, b): _finale_a_cheval(a, b) for a, b in SHEET_FINALES_A_CHEVAL + MORE_FINALES_A_CHEVAL}
"""``{(a, b): ((bet, chips), …)}``: the sheet's five, then the three of the table option."""

# Component bets in the order RULES.md §Roulette lists them (the vectors' layout order).
_FIXED_ANNOUNCES: dict[str, tuple[tuple[RouletteBet, int], ...]] = {
    "voisins_du_zero": (
        (RouletteBet(BetType.TRANSVERSALE, (0, 2, 3)), 2),
        *_chevaux(((4, 7), (12, 15), (18, 21), (19, 22), (32, 35))),
        (RouletteBet(BetType.CARRE, (25, 26, 28, 29)), 2),
    ),
    "tiers_du_cylindre": _chevaux(((5, 8), (10, 11), (13, 16), (23, 24), (27, 30), (33, 36))),
    "orphelins_a_cheval": (
        (RouletteBet(BetType.PLEIN, (1,)), 1),
        *_chevaux(((6, 9), (14, 17), (17, 20), (31, 34))),
    ),
    "orphelins_en_plein": _pleins(_ORPHELINS),
    **{f"finale_en_plein_{d}": _pleins(tuple(range(d, 37, 10))) for d in range(10)},
    **{f"finale_a_cheval_{a}_{b}": components for (a, b), components in FINALES_A_CHEVAL.items()},
    **{f"figures_{n}": _pleins((n, n + 9, n + 18, n + 27)) for n in range(1, 10)},
}

ANNOUNCED: tuple[str, ...] = (*_FIXED_ANNOUNCES, "voisins")
"""Every announce name :func:`expand_announced` accepts (some only under a table option:
:data:`ANNOUNCE_OPTIONS`)."""

ANNOUNCE_OPTIONS: dict[str, str] = {f"finale_a_cheval_{a}_{b}": MORE_FINALES_OPTION for a, b in MORE_FINALES_A_CHEVAL}
"""``{announce name: the table option that offers it}`` for the announces the sheet does not list."""


def expand_announced(
    name: str,
    *,
    chip_cents: int,
    number: int | None = None,
    neighbours: int = 2,
    options: frozenset[str] | set[str] = frozenset(),
) -> list[tuple[RouletteBet, int]]:
    """Expand an announced bet into ``[(component bet, chips)]`` (``RULES.md §Roulette``).

    Order is the layout order of ``RULES.md`` (and of the vectors). Each component's
    stake is ``chips * chip_cents``; settle each component with :func:`settle`.
    ``name`` is one of :data:`ANNOUNCED`; ``"voisins"`` needs ``number`` (0-36) and takes
    ``neighbours`` (k, 1-18) either side, one plein each, in wheel order. ``options``: the
    table options that are on; an announce of :data:`ANNOUNCE_OPTIONS` needs its option.

    Raises :class:`InvalidBet`: field "announce", "chip_cents", "number", "neighbours".
    """
    if not _is_int(chip_cents) or chip_cents <= 0:
        raise InvalidBet("chip_cents", f"must be a positive integer, got {chip_cents!r}")
    if name == "voisins":
        if number is None:
            raise InvalidBet("number", "voisins needs the number in the middle")
        if not _is_int(neighbours) or not 1 <= neighbours <= 18:
            raise InvalidBet("neighbours", f"must be an integer 1-18, got {neighbours!r}")
        return list(_pleins(neighbours_of(number, neighbours)))
    if not isinstance(name, str) or name not in _FIXED_ANNOUNCES:
        raise InvalidBet("announce", f"unknown announced bet {name!r}")
    if name in ANNOUNCE_OPTIONS and ANNOUNCE_OPTIONS[name] not in options:
        raise InvalidBet(
            "announce", f"{name} is not played at this table (table option {ANNOUNCE_OPTIONS[name]} is off)"
        )
    if number is not None:
        raise InvalidBet("number", f"{name} takes no number")
    return list(_FIXED_ANNOUNCES[name])
