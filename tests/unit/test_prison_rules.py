"""RULES.md §Prison bets on the pure engine: one mechanism for trente-et-quarante and French
roulette (``zero_rule = en_prison``).

Every transition of :func:`games.rules.prison.resolve` is written out here from the rule
text; roulette's :func:`~games.rules.roulette.settle` and trente-et-quarante's
:func:`~games.rules.trente_quarante.settle_bet` are then shown to agree with it on every level,
option and result.
"""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from basis.errors import RuleError
from games.rules import trente_quarante as tq
from games.rules.prison import (
    CoupResult,
    DoublePrison,
    PrisonOnClose,
    PrisonOutcome,
    PrisonRules,
    PrisonStep,
    on_close,
    resolve,
)
from games.rules.roulette import ZeroRule, make_bet, settle

ONE, NONE = Fraction(1), Fraction(0)
RELEASED = PrisonStep(0, PrisonOutcome.RELEASED, ONE)
LOST = PrisonStep(0, PrisonOutcome.LOST, NONE)


def jailed(level: int) -> PrisonStep:
    return PrisonStep(level, PrisonOutcome.IMPRISONED, NONE)


def rules(double_prison: str) -> PrisonRules:
    return PrisonRules(double_prison=DoublePrison(double_prison))


# --- the transition table (RULES.md §Prison bets) ---------------------------------------

TRANSITIONS = [
    # (double_prison, level, what the coup does to a free bet, step)
    # A free bet enters prison at level 1 on zero / après, whatever the option.
    ("lose", 0, "prison_event", jailed(1)),
    ("stay", 0, "prison_event", jailed(1)),
    ("deeper", 0, "prison_event", jailed(1)),
    # Level 1: a win returns the stake (no winnings), a loss loses it, a void coup keeps it.
    *[(dp, 1, "won", RELEASED) for dp in ("lose", "stay", "deeper")],
    *[(dp, 1, "lost", LOST) for dp in ("lose", "stay", "deeper")],
    *[(dp, 1, "void", jailed(1)) for dp in ("lose", "stay", "deeper")],
    # A second prison event: double_prison.
    ("lose", 1, "prison_event", LOST),
    ("stay", 1, "prison_event", jailed(1)),
    ("deeper", 1, "prison_event", jailed(2)),
    # Deeper levels: each win takes one off, only a win at level 1 returns the stake.
    ("deeper", 2, "won", jailed(1)),
    ("deeper", 3, "won", jailed(2)),
    ("deeper", 2, "lost", LOST),
    ("deeper", 3, "lost", LOST),
    ("deeper", 2, "void", jailed(2)),
    ("deeper", 2, "prison_event", jailed(3)),
    ("deeper", 7, "prison_event", jailed(8)),
]


@pytest.mark.parametrize(("double_prison", "level", "event", "step"), TRANSITIONS)
def test_every_prison_transition(double_prison, level, event, step):
    assert resolve(level, event, rules(double_prison)) == step


def test_the_default_double_prison_is_lose():
    assert resolve(1, "prison_event") == LOST
    assert PrisonRules() == PrisonRules(DoublePrison.LOSE, PrisonOnClose.HALF_RETURNED)


@pytest.mark.parametrize("event", ["won", "lost", "void"])
def test_a_free_bet_is_settled_by_its_game_not_by_the_prison(event):
    with pytest.raises(RuleError) as err:
        resolve(0, event)
    assert err.value.field == "prison_level"


@pytest.mark.parametrize(
    ("level", "double_prison"), [(2, "lose"), (2, "stay"), (-1, "deeper"), (True, "lose"), (1.0, "lose"), ("1", "lose")]
)
def test_impossible_prison_levels_are_refused(level, double_prison):
    with pytest.raises(RuleError) as err:
        resolve(level, "won", rules(double_prison))
    assert err.value.field == "prison_level"


def test_an_unknown_coup_result_is_refused():
    with pytest.raises(RuleError) as err:
        resolve(1, "half_lost")
    assert err.value.field == "outcome_if_free"


@given(st.sampled_from(list(DoublePrison)), st.lists(st.sampled_from(list(CoupResult)), max_size=30))
def test_a_bet_in_prison_is_returned_whole_or_lost_never_paid(double_prison, events):
    """From the prison event on, until decided: the level stays >= 1 (and 1 unless deeper,
    where it is 1 + prison events - wins); the stake comes back whole (released) or not at all."""
    prison = rules(double_prison)
    step = resolve(0, "prison_event", prison)
    level = expected = 1
    for event in events:
        step = resolve(level, event, prison)
        if step.outcome is not PrisonOutcome.IMPRISONED:
            assert step.level_after == 0
            assert step.return_fraction == (ONE if step.outcome is PrisonOutcome.RELEASED else NONE)
            assert step.outcome is PrisonOutcome.LOST or (event is CoupResult.WON and level == 1)
            return
        assert step.return_fraction == 0
        if double_prison is DoublePrison.DEEPER:
            expected += {CoupResult.PRISON_EVENT: 1, CoupResult.WON: -1}.get(event, 0)
            assert step.level_after == expected
        else:
            assert step.level_after == 1
        level = step.level_after


# --- prison_on_close ---------------------------------------------------------------------


@pytest.mark.parametrize(("stake", "returned", "house"), [(1000, 500, 500), (1001, 500, 501), (1, 0, 1)])
def test_half_returned_on_close_pays_down_to_the_cent(stake, returned, house):
    assert on_close(stake) == (returned, house)
    assert on_close(stake, PrisonRules(prison_on_close="half_returned")) == (returned, house)


def test_returned_on_close_gives_the_whole_stake_back():
    assert on_close(1001, PrisonRules(prison_on_close=PrisonOnClose.RETURNED)) == (1001, 0)


@pytest.mark.parametrize("stake", [0, -5, True, 10.0])
def test_on_close_refuses_a_stake_that_is_not_positive_cents(stake):
    with pytest.raises(RuleError) as err:
        on_close(stake)
    assert err.value.field == "stake_cents"


# --- options as JSON ---------------------------------------------------------------------


def test_prison_rules_round_trip_through_json():
    prison = PrisonRules(DoublePrison.DEEPER, PrisonOnClose.RETURNED)
    assert prison.to_dict() == {"double_prison": "deeper", "prison_on_close": "returned"}
    assert PrisonRules.from_dict(prison.to_dict()) == prison
    assert PrisonRules.from_dict(None) == PrisonRules()
    # A whole table rule set may be passed: the other options are not the prison's business.
    assert PrisonRules.from_dict({"double_prison": "stay", "decks": 6}) == PrisonRules(DoublePrison.STAY)


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"double_prison": "forever"}, "rules.double_prison"),
        ({"prison_on_close": "kept"}, "rules.prison_on_close"),
        ("lose", "rules"),
    ],
)
def test_prison_rules_refuse_unknown_values(options, field):
    with pytest.raises(RuleError) as err:
        PrisonRules.from_dict(options)
    assert err.value.field == field


# --- the games agree with the one mechanism ----------------------------------------------

CHANCES = ["rouge", "noir", "pair", "impair", "manque", "passe"]
STAKE = 1000


def _levels(double_prison: DoublePrison) -> range:
    return range(0, 5) if double_prison is DoublePrison.DEEPER else range(0, 2)


@pytest.mark.parametrize("double_prison", list(DoublePrison))
@pytest.mark.parametrize("chance", CHANCES)
def test_roulette_settle_agrees_with_prison_resolve(chance, double_prison):
    """En prison, every chance simple, every level, every result 0-36: roulette's settle() takes
    the step prison.resolve() gives (a win / loss / zero being 'won' / 'lost' / a prison event)."""
    bet = make_bet("chance_simple", chance=chance)
    prison = rules(double_prison)
    for level in _levels(double_prison):
        for result in range(37):
            s = settle(
                bet, STAKE, result, zero_rule=ZeroRule.EN_PRISON, prison_level=level, double_prison=double_prison
            )
            event = "prison_event" if result == 0 else "won" if result in bet.numbers else "lost"
            if level == 0 and event != "prison_event":
                assert s.outcome == event  # a free bet: the game's own settlement
                continue
            step = resolve(level, event, prison)
            assert (s.outcome.value, s.prison_level_after) == (step.outcome.value, step.level_after)
            assert s.return_cents == STAKE * step.return_fraction
            assert s.house_cents == (STAKE if step.outcome is PrisonOutcome.LOST else 0)
            assert s.winnings_cents == 0


def _tq_coups() -> list[tq.TQCoup]:
    """A noir win with couleur, a rouge win with inverse, a refait and an après."""
    return [
        tq.deal_rows(["AC", "9D", "KH", "QS", "AS", "4D", "8H", "7S", "9C", "5D"]),
        tq.deal_rows(["KS", "QH", "JD", "TC", "AH", "KD", "QS", "JC"]),
        tq.deal_rows(["KS", "KH", "KD", "KC", "QS", "QH", "QD", "QC"]),
        tq.deal_rows(["KS", "TD", "9C", "2H", "JH", "QC", "AS", "KD"]),
    ]


@pytest.mark.parametrize("double_prison", list(DoublePrison))
def test_trente_quarante_settle_agrees_with_prison_resolve(double_prison):
    coups = _tq_coups()
    assert [c.result for c in coups] == ["noir", "rouge", "refait", "apres"]
    prison = rules(double_prison)
    for bet in tq.BETS:
        for coup in coups:
            if coup.result == "apres":
                event = "prison_event"
            elif coup.result == "refait":
                event = "void"
            else:
                event = "won" if bet in (coup.result, coup.couleur_inverse) else "lost"
            for level in _levels(double_prison):
                s = tq.settle_bet(bet, STAKE, coup, prison_level=level, double_prison=double_prison)
                if level == 0 and event != "prison_event":
                    assert s.outcome == {"void": "refait"}.get(event, event)
                    continue
                step = resolve(level, event, prison)
                assert (s.outcome.value, s.prison_level_after) == (step.outcome.value, step.level_after)
                assert s.return_cents == STAKE * step.return_fraction
                assert s.house_cents == (STAKE if step.outcome is PrisonOutcome.LOST else 0)
