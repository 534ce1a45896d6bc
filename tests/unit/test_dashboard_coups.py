"""A finished coup as the table page reads it: hands with their cards, totals and the
winner for every game; and the win chart's time axis in the casino's zone, labels distinct."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from dashboard.charts import time_labels, win_chart
from dashboard.coups import card_text, describe
from dashboard.templatetags.dashboard_tags import colour_word, roulette_colour


def dealt(box, card, hand_index=0):
    return ("CardDealt", {"card": card, "to": {"box": box, "kind": "player", "hand_index": hand_index}})


def dealer(card):
    return ("CardDealt", {"card": card, "to": {"box": None, "kind": "dealer", "hand_index": None}})


def test_cards_read_as_rank_and_suit_symbol():
    assert [card_text(c) for c in ("TH", "AS", "QD", "7C")] == ["10♥", "A♠", "Q♦", "7♣"]


def test_a_split_black_jack_box_shows_each_hand_with_its_own_cards_and_total():
    events = [
        dealt(2, "3D"),
        dealer("7H"),
        dealt(2, "3S"),
        dealer("TH"),
        ("PlayerDecided", {"box": 2, "action": "split", "hand_index": 0, "new_hand_index": 1}),
        dealt(2, "QS", 0),
        dealt(2, "5C", 1),
        dealt(2, "AD", 1),
        ("BetSettled", {"box": 2, "hand_index": 0, "outcome": "lost", "position": {"seated": True}}),
        ("BetSettled", {"box": 2, "hand_index": 1, "outcome": "won", "position": {"seated": True}}),
    ]
    shown = describe("blackjack", {"dealer": ["7H", "TH"]}, events)
    assert [(h["who"], h["cards"], h["total"], h["won"]) for h in shown["hands"]] == [
        ("Dealer", ["7H", "TH"], "17", False),
        ("Box 2", ["3D", "QS"], "13", False),
        ("Box 2 hand 2", ["3S", "5C", "AD"], "soft 19", True),  # the ace counts 11: 3 + 5 + 11
    ]
    assert shown["verdict"] == "Dealer 17; box 2 hand 2 wins"


def test_baccarat_shows_both_hands_their_totals_the_natural_and_the_winner():
    result = {
        "winner": "banker",
        "natural": True,
        "player_cards": ["9S", "KS"],
        "player_total": 9,
        "banker_cards": ["JH", "9C"],
        "banker_total": 9,
    }
    tie = describe("baccarat", {}, [("CoupResult", {**result, "winner": "tie"})])
    assert tie["verdict"] == "Tie at 9" and tie["hands"][0]["total"] == "9, natural"
    win = describe(
        "baccarat",
        {},
        [
            (
                "CoupResult",
                {
                    **result,
                    "banker_cards": ["KD", "6H"],
                    "banker_total": 6,
                    "natural": False,
                    "player_cards": ["TH", "2H", "KC"],
                    "player_total": 2,
                },
            )
        ],
    )
    assert win["verdict"] == "Banker wins 6 to 2"
    assert [h["won"] for h in win["hands"]] == [False, True]


def test_trente_et_quarante_shows_the_two_rows_with_points_and_an_apres():
    coup = {
        "result": "apres",
        "noir_row": ["5S", "4H", "2S", "KS", "KD"],
        "rouge_row": ["4D", "AS", "8C", "4S", "5D", "6D", "3S"],
        "noir_points": 31,
        "rouge_points": 31,
        "couleur_inverse": None,
    }
    shown = describe("trente_quarante", {}, [("CoupResult", coup)])
    assert [(h["who"], h["total"]) for h in shown["hands"]] == [
        ("Noir (first row)", "31 points"),
        ("Rouge (second row)", "31 points"),
    ]
    assert shown["verdict"] == "Après (31 each): the bets go to prison"


def test_caribbean_stud_names_both_hands_and_whether_the_dealer_qualifies():
    events = [("CardDealt", {"box": 1, "card": c}) for c in ("AD", "2D", "2S", "3C", "4D")] + [
        ("DealerRevealed", {"cards": ["KD", "2C", "2H", "KH", "AH"], "category": "two pair", "qualifies": True}),
        ("BetSettled", {"box": 1, "line": "ante", "hand": "pair", "outcome": "lost"}),
    ]
    shown = describe("caribbean_stud", {}, events)
    assert shown["hands"][0]["total"] == "two pair, qualifies"
    assert (shown["hands"][1]["total"], shown["hands"][1]["outcome"]) == ("pair", "loses")


def test_caribbean_stud_shows_a_burnt_card_and_the_hand_with_its_replacement():
    events = [("CardDealt", {"box": 1, "card": c}) for c in ("AD", "2D", "2S", "3C", "4D")] + [
        ("CardBurnt", {"box": 1, "card": "2S", "from": "hand", "place": 2}),
        ("CardDealt", {"box": 1, "card": "TH"}),
        ("CardBurnt", {"box": None, "card": "9C", "from": "deck", "index": 12}),
        ("DealerRevealed", {"cards": ["KD", "2C", "2H", "KH", "AH"], "category": "two pair", "qualifies": True}),
        ("BetSettled", {"box": 1, "line": "ante", "hand": "high card", "outcome": "lost"}),
    ]
    shown = describe("caribbean_stud", {}, events)
    assert shown["hands"][1]["cards"] == ["AD", "2D", "TH", "3C", "4D"]
    assert shown["verdict"] == (
        "Dealer two pair, qualifies; no box wins; burnt, exposed by mistake: 2♠ (from box 1), "
        "9♣ (off the deck, for the dealer)"
    )


def test_roulette_shows_the_number_and_its_colour():
    assert describe("english_roulette", {"number": 0}, [])["verdict"] == "0 green"
    assert describe("english_roulette", {"number": 17}, [])["verdict"] == "17 black"


# RULES.md §Roulette, written out here so that a change to the rules' own set is caught.
RULES_RED = {1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36}


def test_the_coup_and_the_page_colour_every_pocket_as_the_rules_do():
    for number in range(1, 37):
        colour = "red" if number in RULES_RED else "black"
        assert describe("english_roulette", {"number": number}, [])["verdict"] == f"{number} {colour}"
        assert roulette_colour(number) == colour_word(number) == colour
    assert (roulette_colour(0), colour_word(0)) == ("zero", "green")  # a CSS class, and words


def test_chart_time_labels_are_distinct_and_in_the_casinos_zone():
    start = datetime(2026, 12, 1, 23, 39, 48, tzinfo=UTC)
    moments = [start + timedelta(seconds=4 * i) for i in range(40)]
    labels, fmt = time_labels(moments)
    assert fmt == "%H:%M:%S" and len(labels) == 6
    assert len({m.strftime(fmt) for m in labels}) == 6
    svg = win_chart([(m, 100 * i) for i, m in enumerate(moments)], table="B1", zone=ZoneInfo("Europe/Paris"))
    assert "00:39:48" in svg and "23:39:48" not in svg  # 23:39 UTC is 00:39 in Paris
    assert "time (Europe/Paris)" in svg


def test_an_empty_day_draws_no_chart():
    assert win_chart([], table="B1", zone=ZoneInfo("Europe/Paris")) is None
