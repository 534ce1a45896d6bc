"""Every ledger event in words (``games.rules.event_words``): one wording for the audit trail's
summary, the coup audit page and the play feed; amounts through the money formatter, never a
cent count or a ``key=value`` dump; a face-down card without its value until its coup is over."""

import pytest

from dashboard.play import play_line
from dashboard.table_reads import event_line
from games.rules.event_words import line as summary

ROUND = {"round": "182220a9-27f9-467f-a206-8ef96e316dad", "table": "C2"}

WORDED = [
    (
        "BetResolved",
        {"bet": "1d86d3e6", "patron": "P00042", "return_cents": 2000, "staked_cents": 2000, "state": "pushed"},
        "P00042's bet of 20.00 EUR pushed, returns 20.00 EUR",
    ),
    (
        "BoxDecided",
        {"box": 1, "patron": "P00005", "action": "raise", "raise_cents": 2000},
        "box 1 (P00005): raise 20.00 EUR",
    ),
    (
        "DealerPlayed",
        {"cards": ["6C", "8D", "4H"], "total": 18, "blackjack": False, "busted": False},
        "dealer 6♣ 8♦ 4♥: stands on 18",
    ),
    (
        "AmlTransactionRefused",
        {
            "patron": "P00018",
            "direction": "in",
            "channel": "cage_purchase",
            "amount_cents": 250_000,
            "day_total_cents": 250_000,
            "threshold_cents": 200_000,
            "reason": "no identity on file",
        },
        "transaction refused: cash in 2,500.00 EUR (chips bought at the cage), day's total 2,500.00 EUR, "
        "threshold 2,000.00 EUR: no identity on file",
    ),
    (
        "DropCounted",
        {
            "table": "B1",
            "gaming_day": "2026-12-02",
            "denominations": {"500": 1},
            "counted_cents": 199_500,
            "expected_cents": 200_000,
            "variance_cents": -500,
            "counters": ["count1", "count2"],
        },
        "drop box of B1 counted: 1,995.00 EUR against 2,000.00 EUR expected, variance -5.00 EUR",
    ),
    (
        "FillIssued",
        {"slip": "2026-000001", "kind": "fill", "table": "R1", "issued_by": "cashier1", "runner": "runner1"},
        "fill 2026-000001 for R1 issued by cashier1, runner runner1",
    ),
    (
        "FillRequested",
        {"slip": "2026-000001", "kind": "fill", "table": "R1", "amount_cents": 100_000, "denominations": {}},
        "fill 2026-000001 of 1,000.00 EUR for R1 requested",
    ),
    (
        "RakeTaken",
        {"pot": 0, "pot_cents": 1000, "rake_owed_cents": "50", "rake_cents": 50},
        "rake of 0.50 EUR taken from the main pot of 10.00 EUR",
    ),
    (
        "PotAwarded",
        {"amount_cents": 2400, "eligible": [1, 2, 3], "winners": [3], "rake_owed": "120", "rake_cents": 120, "pot": 0},
        "the main pot of 24.00 EUR to seat 3, rake 1.20 EUR",
    ),
    (
        "PotAwarded",
        {"amount_cents": 800, "eligible": [1, 2], "winners": [1, 2], "rake_owed": "0", "rake_cents": 0, "pot": 1},
        "side pot 1 of 8.00 EUR to seats 1, 2, rake 0.00 EUR",
    ),
    (
        "HandsShown",
        {"hands": [{"seat": 1, "player": "P00009", "cards": ["8S", "3S", "TC", "QD", "3H"], "category": "pair"}]},
        "hands shown: seat 1 (P00009) 8♠ 3♠ 10♣ Q♦ 3♥: pair",
    ),
    (
        "CreditLineApproved",
        {"patron": "P00023", "limit_cents": 500_000, "before": None, "after": 500_000},
        "credit line of P00023 approved: 5,000.00 EUR",
    ),
    (
        "ShoeShuffled",
        {"commitment": "8533", "cut_position": 226, "decks": 6, "mode": "shuffled", "shoe": "7c9d", "table": "B1"},
        "shoe of 6 decks shuffled for B1, cut at card 226, order sealed",
    ),
    (
        "TableOpened",
        {"table": "R2", "game": "english_roulette", "opener_cents": 5_000_000},
        "table R2 opened (English roulette), opener 50,000.00 EUR",
    ),
    (
        "CardDealt",
        {"card": "AS", "to": {"kind": "player", "box": 1, "hand_index": 0}, "total": 11, "soft": True},
        "card A♠ to box 1 (total 11 soft)",
    ),
    ("InsuranceDecided", {"box": 2, "bettor": "P00031", "amount_cents": 500}, "box 2 (P00031): insures for 5.00 EUR"),
    ("EvenMoneyDecided", {"box": 1, "bettor": "P00030", "accepted": False}, "box 1 (P00030): declines even money"),
]


@pytest.mark.parametrize(("event_type", "data", "words"), WORDED, ids=[w[0] for w in WORDED])
def test_the_audit_summary_the_coup_audit_page_and_the_play_feed_word_an_event_alike(event_type, data, words):
    data = {**ROUND, **data}
    assert summary(event_type, data) == words
    assert event_line(event_type, data) == words
    if event_type != "BetResolved":  # the feed shows its BetSettled line instead
        assert play_line(event_type, data, lambda t, d: "?") == words


def test_a_face_down_card_reads_without_its_value_until_its_coup_is_over():
    dealer = {**ROUND, "shoe": "s", "index": 3, "card": "5H", "box": None, "face": "down"}
    assert summary("CardDealt", dealer) == "card to dealer, face down"
    assert summary("CardDealt", dealer, round_over=True) == "card 5♥ to dealer, face down"
    hole = {**ROUND, "card": "6S", "seat": 1, "patron": "P00009", "face": "hole", "betting_round": 1}
    assert summary("CardDealt", hole) == "card to seat 1 (P00009), hole card, face down"
    assert summary("CardDealt", hole, round_over=True) == "card 6♠ to seat 1 (P00009), hole card, face down"
    last = {**hole, "card": "TD", "face": "down", "betting_round": 4}
    assert summary("CardDealt", last) == "card to seat 1 (P00009), face down"
    up = {**hole, "card": "QC", "face": "up", "betting_round": 1}
    assert summary("CardDealt", up) == "card Q♣ to seat 1 (P00009), face up"


def test_a_face_down_card_of_odd_shape_still_leaves_its_value_out():
    odd = {"card": "5H", "face": "down", "to": "dealer"}
    assert "5" not in summary("CardDealt", odd) and "5" not in event_line("CardDealt", odd)


def test_an_event_without_a_wording_reads_as_words_with_its_amounts_formatted():
    line = summary("TroncShared", {"pool_cents": 15_000, "shared_cents": 15_000, "carried_cents": 0, "shares": []})
    assert line == "tronc shared: pool 150.00 EUR, shared 150.00 EUR, carried 0.00 EUR"


def test_a_reversed_coup_reads_as_the_coup_its_table_numbered_never_as_a_winning_number():
    data = {"round": "x", "table": "R1", "number": 9, "reverses": [12, 13], "reason": "wrong number keyed"}

    assert summary("RoundReversed", data) == "coup 9 of R1 reversed: wrong number keyed"
    assert summary("RoundReversed", data | {"approved_by": "pit2"}) == (
        "coup 9 of R1 reversed: wrong number keyed, signed by pit2"
    )


def test_every_aml_cash_channel_and_a_dealers_assignment_read_in_words():
    from games.rules.event_words import AML_CHANNELS, line
    from patrons.visits import CASH_EVENTS

    assert {channel for _, channel in CASH_EVENTS.values()} <= set(AML_CHANNELS)
    assert line("DealerAssigned", {"dealer": "ann", "table": "S1", "before": "B1", "after": "S1"}) == (
        "dealer ann assigned to S1, moved from B1"
    )
    assert line("DealerReleased", {"dealer": "ann", "table": "S1", "before": "S1"}) == "dealer ann released from S1"
