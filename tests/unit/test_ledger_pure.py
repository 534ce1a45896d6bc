"""Ledger pieces that need no database: hashing, gaming day, posting rules, table rules."""

from collections import defaultdict
from datetime import UTC, date, datetime

import pytest

from games.rules.roulette import InvalidBet, ZeroRule, make_bet
from games.rules.roulette_table import RouletteTableRules
from ledger import posting_rules
from ledger.errors import UnbalancedPostings
from ledger.gaming_day import gaming_day_of
from ledger.hashing import GENESIS_HASH, canonical_json, event_hash
from ledger.store import Leg, check_balanced

MOMENT = datetime(2026, 11, 29, 17, 0, tzinfo=UTC)
ENVELOPE = dict(
    position=1,
    stream="s",
    version=1,
    type="T",
    schema_version=1,
    data={"b": 1, "a": [1, "x"]},
    occurred_at=MOMENT,
    recorded_at=MOMENT,
    gaming_day=date(2026, 11, 29),
    actor="a",
    correlation_id="",
    causation_id="",
    idempotency_key=None,
    prev_hash=GENESIS_HASH,
)


def test_canonical_json_sorts_keys_and_has_no_whitespace():
    assert canonical_json({"b": 1, "a": {"d": [1, 2], "c": None}}) == '{"a":{"c":null,"d":[1,2]},"b":1}'


@pytest.mark.parametrize("bad", [1.0, {"x": 0.5}, [1, {"y": float("nan")}], {1: "int key"}, {"d": date.today()}])
def test_canonical_json_refuses_floats_and_non_json(bad):
    with pytest.raises(TypeError):
        canonical_json(bad)


def test_event_hash_is_stable_and_covers_every_field_and_posting():
    legs = [("a", 100, "EUR"), ("b", -100, "EUR")]
    digest = event_hash(**ENVELOPE, postings=legs)
    assert digest == event_hash(**ENVELOPE, postings=list(reversed(legs)))  # posting order is not content
    assert len(digest) == 64
    for field, other in [
        ("position", 2),
        ("actor", "b"),
        ("data", {"b": 2, "a": [1, "x"]}),
        ("occurred_at", MOMENT.replace(microsecond=1)),
        ("prev_hash", "1" * 64),
    ]:
        assert event_hash(**{**ENVELOPE, field: other}, postings=legs) != digest, field
    assert event_hash(**ENVELOPE, postings=[("a", 101, "EUR"), ("b", -101, "EUR")]) != digest


@pytest.mark.parametrize(
    "utc, day",
    [
        ("2026-11-29T04:59:59", "2026-11-28"),  # 05:59:59 in Paris (UTC+1): still yesterday's day
        ("2026-11-29T05:00:00", "2026-11-29"),  # 06:00 in Paris: the new gaming day
        ("2026-07-01T03:59:00", "2026-06-30"),  # 05:59 in summer (UTC+2)
        ("2026-07-01T04:00:00", "2026-07-01"),
        ("2026-03-29T03:30:00", "2026-03-28"),  # 05:30 Paris (UTC+2 since 01:00 UTC that night)
        ("2026-03-29T04:00:00", "2026-03-29"),  # 06:00 Paris, summer time
    ],
)
def test_gaming_day_starts_at_six_in_paris(utc, day):
    moment = datetime.fromisoformat(utc).replace(tzinfo=UTC)
    assert gaming_day_of(moment, tz_name="Europe/Paris", start="06:00") == date.fromisoformat(day)


def test_gaming_day_needs_an_aware_time():
    with pytest.raises(ValueError):
        gaming_day_of(datetime(2026, 1, 1), tz_name="Europe/Paris", start="06:00")


def _sums(legs):
    totals = defaultdict(int)
    for leg in legs:
        totals[leg.currency] += leg.amount_cents
    return dict(totals)


@pytest.mark.parametrize(
    "legs",
    [
        posting_rules.chip_purchase("patron:P1:chips", 1234),
        posting_rules.redemption("patron:P1:chips", 1234),
        posting_rules.table_buy_in("R1", "patron:P1:chips", 5000),
        posting_rules.bet_placed("patron:P1:chips", "R1", 700),
        posting_rules.bet_settled(
            table="R1", patron_account="p", house_account="t", stake=700, returned=700, winnings=0
        ),
        posting_rules.bet_settled(
            table="R1", patron_account="p", house_account="t", stake=701, returned=350, winnings=0
        ),
        posting_rules.bet_settled(
            table="R1", patron_account="p", house_account="t", stake=10, returned=10, winnings=350
        ),
        posting_rules.bet_settled(table="R1", patron_account="p", house_account="t", stake=10, returned=0, winnings=0),
        posting_rules.colour_chips_bought("R1", "patron:P1:chips", "patron:P1:colour:R1", 2000),
        posting_rules.change_inverse("R1", "patron:P1:chips", "patron:P1:colour:R1", 2000),
        posting_rules.stock("cage:cash", "house:bankroll", -300),
    ],
)
def test_every_posting_rule_sums_to_zero(legs):
    assert legs and set(_sums(legs).values()) == {0}
    check_balanced(legs, event_type="T")


def test_la_partage_postings_match_design():
    """DESIGN.md: la partage: layout −s, patron +⌊s/2⌋, tray +⌈s/2⌉."""
    legs = posting_rules.bet_settled(
        table="R1",
        patron_account="patron:P1:chips",
        house_account="table:R1:tray",
        stake=1001,
        returned=500,
        winnings=0,
    )
    assert legs == [Leg("table:R1:layout", -1001), Leg("patron:P1:chips", 500), Leg("table:R1:tray", 501)]


def test_a_win_at_k_to_1_matches_design():
    """DESIGN.md: won at k:1: layout −s, patron +s; tray −k·s, patron +k·s."""
    legs = posting_rules.bet_settled(
        table="R1", patron_account="p", house_account="table:R1:tray", stake=1000, returned=1000, winnings=35_000
    )
    assert legs == [Leg("table:R1:layout", -1000), Leg("p", 1000), Leg("table:R1:tray", -35_000), Leg("p", 35_000)]


def test_check_balanced_refuses_per_currency_imbalance():
    with pytest.raises(UnbalancedPostings):
        check_balanced([Leg("a", 5, "EUR"), Leg("b", -5, "USD")], event_type="T")


@pytest.mark.parametrize(
    "options, field",
    [
        ({"zero_rule": "half"}, "rules.zero_rule"),
        ({"min_bet_cents": 0}, "rules.min_bet_cents"),
        ({"min_bet_cents": 10.5}, "rules.min_bet_cents"),
        ({"min_bet_cents": True}, "rules.min_bet_cents"),
        ({"min_bet_cents": 500, "max_bet_cents": 400}, "rules.min_bet_cents"),
        ({"max_colours": 9}, "rules.max_colours"),
        ({"colour_count": 3}, "rules.colour_count"),
    ],
)
def test_table_rules_refuse_bad_options(options, field):
    with pytest.raises(InvalidBet) as refused:
        RouletteTableRules.from_dict(options)
    assert refused.value.field == field


def test_table_rules_round_trip():
    rules = RouletteTableRules.from_dict({"zero_rule": "lost", "max_bet_cents": 20_000})
    assert rules.zero_rule is ZeroRule.LOST and RouletteTableRules.from_dict(rules.to_dict()) == rules


@pytest.mark.parametrize(
    "bet, stake, colour, already, field",
    [
        (make_bet("plein", numbers=[7]), 100, True, 0, "stake_cents"),  # under the 2 EUR minimum
        (make_bet("plein", numbers=[7]), 10_200, True, 0, "stake_cents"),  # over the 100 EUR maximum
        (make_bet("plein", numbers=[7]), 6_000, True, 5_000, "stake_cents"),  # 110 EUR on one position
        (make_bet("plein", numbers=[7]), 1_000, False, 0, "chips"),  # value chips inside: colour needed
        (make_bet("chance_simple", chance="rouge"), 400, True, 0, "stake_cents"),  # even chance minimum 5
        (make_bet("chance_simple", chance="rouge"), 800, False, 0, "stake_cents"),  # standing minimum 10
    ],
)
def test_table_limits(bet, stake, colour, already, field):
    with pytest.raises(InvalidBet) as refused:
        RouletteTableRules().check_stake(bet, stake, colour_chips=colour, already_cents=already)
    assert refused.value.field == field


def test_table_limits_accept_the_edges():
    rules = RouletteTableRules()
    rules.check_stake(make_bet("plein", numbers=[7]), 200, colour_chips=True)
    rules.check_stake(make_bet("plein", numbers=[7]), 5_000, colour_chips=True, already_cents=5_000)
    rules.check_stake(make_bet("chance_simple", chance="noir"), 1_000, colour_chips=False)
