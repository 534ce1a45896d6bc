"""Prison bets: the one mechanism shared by trente-et-quarante and French roulette.

Source: ``RULES.md §Prison bets`` (and ``§Roulette``, ``zero_rule = en_prison``;
``§Trente-et-quarante``, ``un après``). A bet goes to prison on a *prison event* (zero at
roulette, an après at trente-et-quarante); while there it stays on the layout, cannot be
withdrawn or moved, and is decided by the next coup of the same table:

============  =====================================================================
next coup     the imprisoned bet (level ``n`` >= 1)
============  =====================================================================
``won``       level 1: **released**, the stake is returned without winnings;
              level n > 1 (``deeper`` only): imprisoned at level n - 1
``lost``      **lost**
``void``      stays **imprisoned** at level n (a refait)
prison event  ``double_prison``: ``lose`` lost; ``stay`` imprisoned at level n;
              ``deeper`` imprisoned at level n + 1
============  =====================================================================

A free bet (level 0) enters prison at level 1 on a prison event; its other outcomes are its
game's own settlement (paid at the game's odds), not the prison's. A table that closes with
bets in prison settles them by ``prison_on_close`` (:func:`on_close`).

:func:`games.rules.roulette.settle` implements the same table for the chances simples (it
predates this module); ``tests/unit/test_prison_rules.py`` proves the two agree on every
level, option and result. :mod:`games.rules.trente_quarante` calls :func:`resolve`.

Pure: no Django, no clock, no randomness.
"""

from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Any

from basis.errors import RuleError

from .roulette import DoublePrison

__all__ = [
    "CoupResult",
    "DoublePrison",
    "PrisonOnClose",
    "PrisonOutcome",
    "PrisonRules",
    "PrisonStep",
    "on_close",
    "resolve",
]


class PrisonOnClose(StrEnum):
    """What a table closing with bets in prison does with them (option ``prison_on_close``)."""

    HALF_RETURNED = "half_returned"  # the default (RULES.md §Prison bets)
    RETURNED = "returned"


class CoupResult(StrEnum):
    """What the coup would do to the bet if it were free (the input of :func:`resolve`)."""

    WON = "won"
    LOST = "lost"
    VOID = "void"  # a refait at trente-et-quarante
    PRISON_EVENT = "prison_event"  # zero at roulette, an après at trente-et-quarante


class PrisonOutcome(StrEnum):
    RELEASED = "released"
    LOST = "lost"
    IMPRISONED = "imprisoned"


def _enum(cls: type[StrEnum], value: Any, field: str) -> Any:
    try:
        return cls(value)
    except ValueError:
        allowed = ", ".join(m.value for m in cls)
        raise RuleError(field, f"unknown value {value!r}; one of {allowed}") from None


@dataclass(frozen=True)
class PrisonRules:
    """The table's prison options (``RULES.md §Prison bets``); defaults first.

    - ``double_prison``: ``lose`` (a second prison event loses the bet) | ``stay`` (it stays
      in prison until decided) | ``deeper`` (French multi-level prison).
    - ``prison_on_close``: ``half_returned`` (the patron gets half the stake back, rounded
      down to the cent) | ``returned`` (the whole stake).
    """

    double_prison: DoublePrison = DoublePrison.LOSE
    prison_on_close: PrisonOnClose = PrisonOnClose.HALF_RETURNED

    def __post_init__(self) -> None:
        object.__setattr__(self, "double_prison", _enum(DoublePrison, self.double_prison, "rules.double_prison"))
        object.__setattr__(self, "prison_on_close", _enum(PrisonOnClose, self.prison_on_close, "rules.prison_on_close"))

    @classmethod
    def from_dict(cls, options: dict[str, Any] | None) -> "PrisonRules":
        """Build from JSON options (as :meth:`to_dict` writes them, or a whole table rule set:
        other keys are ignored, so a game's rules dict can be passed as it is); missing
        options take the default. Raises :class:`RuleError` naming ``rules.<option>``."""
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise RuleError("rules", "must be an object of table options")
        return cls(**{name: options[name] for name in ("double_prison", "prison_on_close") if name in options})

    def to_dict(self) -> dict[str, str]:
        """JSON-safe; ``PrisonRules.from_dict(rules.to_dict()) == rules``."""
        return {"double_prison": self.double_prison.value, "prison_on_close": self.prison_on_close.value}


@dataclass(frozen=True)
class PrisonStep:
    """What one coup does to a bet in (or entering) prison.

    ``level_after``: 0 = decided, n >= 1 = in prison at level n. ``return_fraction``: the part
    of the stake that goes back to the patron: 1 when released, 0 otherwise (a lost stake goes
    to the house; an imprisoned one stays on the layout, neither returned nor kept).
    """

    level_after: int
    outcome: PrisonOutcome
    return_fraction: Fraction


_RELEASED = PrisonStep(0, PrisonOutcome.RELEASED, Fraction(1))
_LOST = PrisonStep(0, PrisonOutcome.LOST, Fraction(0))


def _imprisoned(level: int) -> PrisonStep:
    return PrisonStep(level, PrisonOutcome.IMPRISONED, Fraction(0))


def resolve(level: int, outcome_if_free: CoupResult | str, rules: PrisonRules | None = None) -> PrisonStep:
    """The step a coup makes a bet take, the bet being in prison at ``level`` (0 = free).

    ``outcome_if_free`` is what the coup does to the same bet when it is free: ``won``,
    ``lost``, ``void`` or ``prison_event`` (the table in the module docstring). A free bet
    (``level`` 0) accepts only ``prison_event`` (it enters prison at level 1): its other
    outcomes are settled by its game at the game's odds.

    Raises :class:`RuleError`: field ``"prison_level"`` (not an int >= 0; above 1 without
    ``deeper``; a free bet with an outcome other than a prison event), ``"outcome_if_free"``.
    """
    rules = rules if rules is not None else _DEFAULT_RULES
    if type(level) is not int or level < 0:
        raise RuleError("prison_level", f"must be an integer >= 0, got {level!r}")
    if level > 1 and rules.double_prison is not DoublePrison.DEEPER:
        raise RuleError("prison_level", "levels above 1 exist only with double_prison = deeper")
    event = _enum(CoupResult, outcome_if_free, "outcome_if_free")
    if level == 0:
        if event is not CoupResult.PRISON_EVENT:
            raise RuleError("prison_level", "a bet that is not in prison is settled by its game, not by the prison")
        return _imprisoned(1)
    if event is CoupResult.WON:
        return _RELEASED if level == 1 else _imprisoned(level - 1)
    if event is CoupResult.LOST:
        return _LOST
    if event is CoupResult.VOID:
        return _imprisoned(level)
    # A second prison event (RULES.md §Prison bets, option double_prison).
    if rules.double_prison is DoublePrison.LOSE:
        return _LOST
    if rules.double_prison is DoublePrison.STAY:
        return _imprisoned(level)
    return _imprisoned(level + 1)


_DEFAULT_RULES = PrisonRules()


def on_close(stake_cents: int, rules: PrisonRules | None = None) -> tuple[int, int]:
    """``(returned_cents, house_cents)`` for a bet still in prison when its table closes
    (option ``prison_on_close``), whatever its level.

    ``half_returned``: the patron gets ``floor(stake / 2)``, the house the rest (the odd cent of
    an odd stake goes to the house, as with la partage: RULES.md pays down to the cent).
    ``returned``: the whole stake back. Raises :class:`RuleError` (``"stake_cents"``).
    """
    rules = rules if rules is not None else _DEFAULT_RULES
    if type(stake_cents) is not int or stake_cents <= 0:
        raise RuleError("stake_cents", f"must be a positive integer of cents, got {stake_cents!r}")
    if rules.prison_on_close is PrisonOnClose.RETURNED:
        return stake_cents, 0
    returned = stake_cents // 2
    return returned, stake_cents - returned
