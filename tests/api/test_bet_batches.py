"""Batch bet intake: many patrons' bets on one coup in one command.

Each bet of a batch is checked as a single placement checks it and accepted or refused on its
own, with the single placement's error code and field; the accepted ones are appended in one
ledger transaction. A retried batch (same batch key, or a new batch key with the same per-bet
keys) places nothing twice; two batches at once never overdraw a patron.
"""

import pytest
from rest_framework.test import APIClient

from games.models import Bet, BetRefusal
from games.services import bet_batches
from games.services.bet_batches import bet_batch_place
from games.services.rounds import round_close_bets, round_open
from games.services.tables import table_open
from ledger import accounts, store
from ledger.models import Event, IdempotencyRecord, Posting
from staff.services import dealer_assign
from tests.conftest import ACTOR, API_TEST_ROLES, make_patron, open_by_total, set_self_limit, staff_user
from tests.integration.concurrency import run_concurrently

PLEIN_17 = {"type": "plein", "numbers": [17]}
ROUGE = {"type": "chance_simple", "chance": "rouge"}


@pytest.fixture
def coup(db, table) -> str:
    """A coup of R1 in betting (the race test takes ``committed_db`` and opens its own)."""
    return round_open(table="R1", actor=ACTOR)["round"]


def send(client, coup, bets, key=None):
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    return client.post(f"/api/rounds/{coup}/bet-batches", {"bets": bets}, format="json", **headers)


def chips(patron: str) -> int:
    return store.balance(accounts.patron_chips(patron))


def test_a_mixed_batch_accepts_the_good_bets_and_refuses_each_bad_one_with_its_reason(coup, api):
    rich, poor, limited = make_patron(300_000), make_patron(1_000), make_patron(100_000)
    set_self_limit(limited, 3_000)
    bets = [
        {"patron": rich, "stake_cents": 60_000, "bet": ROUGE, "key": "b1"},
        {"patron": poor, "stake_cents": 2_000, "bet": ROUGE, "key": "b2"},  # holds 10 EUR
        {"patron": rich, "stake_cents": 50_000, "bet": ROUGE, "key": "b3"},  # 1,100 EUR on rouge > 1,000
        {"patron": limited, "stake_cents": 5_000, "bet": ROUGE, "key": "b4"},  # over his 30 EUR
        {"patron": rich, "stake_cents": 500, "bet": PLEIN_17, "chips": "colour", "key": "b5"},  # no colour chips
        {"patron": limited, "stake_cents": 3_000, "bet": ROUGE, "key": "b6"},
        {"patron": rich, "stake_cents": 40_000, "bet": ROUGE, "key": "b7"},  # 1,000 EUR on rouge: the maximum
    ]
    response = send(api, coup, bets, key="batch-1")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["accepted"], body["refused"]) == (3, 4), [(r.get("detail"), r.get("field")) for r in body["results"]]
    outcome = [(r["index"], r["status"], r.get("error"), r.get("field")) for r in body["results"]]
    assert outcome == [
        (0, "accepted", None, None),
        (1, "refused", "insufficient_funds", "stake_cents"),
        (2, "refused", "invalid", "stake_cents"),
        (3, "refused", "invalid", "stake_cents"),
        (4, "refused", "insufficient_funds", "chips"),
        (5, "accepted", None, None),
        (6, "accepted", None, None),
    ]
    kinds = [r.get("kind") for r in body["results"]]
    assert kinds == [None, "insufficient_chips", "table_maximum", "self_limit", "insufficient_chips", None, None]
    assert "table maximum" in body["results"][2]["detail"]
    assert "own limit" in body["results"][3]["detail"]
    assert chips(rich) == 200_000 and chips(poor) == 1_000 and chips(limited) == 97_000
    placed = Bet.objects.filter(round_id=coup).order_by("stake_cents")
    assert [(b.patron.code, b.stake_cents) for b in placed] == [(limited, 3_000), (rich, 40_000), (rich, 60_000)]
    # the accepted bets went in one ledger transaction: consecutive events, one command
    events = list(Event.objects.filter(type="BetPlaced", correlation_id=coup).order_by("position"))
    assert len(events) == 3
    assert [e.position for e in events] == list(range(events[0].position, events[0].position + 3))
    for result in (body["results"][0], body["results"][5], body["results"][6]):
        bet_id = result["bets"][0]["bet"]
        event = next(e for e in events if e.data["bet"] == bet_id)
        legs = sorted(Posting.objects.filter(event=event).values_list("account", "amount_cents"))
        stake = result["total_cents"]
        assert legs == sorted([(accounts.patron_chips(result["patron"]), -stake), (accounts.table_layout("R1"), stake)])
    assert sum(Posting.objects.values_list("amount_cents", flat=True)) == 0
    assert store.balance(accounts.table_layout("R1")) == 103_000
    # every refusal by the house's rules is recorded for the floor, like single refusals
    refusals = sorted(BetRefusal.objects.filter(round_id=coup).values_list("patron_code", "kind", "stake_cents"))
    assert refusals == sorted(
        [
            (poor, "insufficient_chips", 2_000),
            (rich, "table_maximum", 50_000),
            (limited, "self_limit", 5_000),
            (rich, "insufficient_chips", 500),
        ]
    )


def test_the_same_batch_retried_with_its_key_places_nothing_twice(coup, api):
    patron = make_patron(100_000)
    bets = [{"patron": patron, "stake_cents": 1_000, "bet": ROUGE, "key": f"k{i}"} for i in range(3)]
    bets.append({"patron": patron, "stake_cents": 200_000, "bet": ROUGE, "key": "over"})
    first = send(api, coup, bets, key="batch-A")
    again = send(api, coup, bets, key="batch-A")
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert Bet.objects.filter(round_id=coup).count() == 3
    assert chips(patron) == 97_000
    assert BetRefusal.objects.filter(round_id=coup).count() == 1


def test_a_batch_resent_under_a_new_key_with_the_same_bet_keys_places_nothing_twice(coup, api):
    patron = make_patron(100_000)
    bets = [{"patron": patron, "stake_cents": 1_000, "bet": ROUGE, "key": f"k{i}"} for i in range(3)]
    first = send(api, coup, bets, key="batch-A").json()
    bets.append({"patron": patron, "stake_cents": 2_000, "bet": ROUGE, "key": "k-new"})
    response = send(api, coup, bets, key="batch-B")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["accepted"], body["refused"]) == (4, 0)
    assert [r["replayed"] for r in body["results"]] == [True, True, True, False]
    assert [r["bets"] for r in body["results"][:3]] == [r["bets"] for r in first["results"]]
    assert Bet.objects.filter(round_id=coup).count() == 4
    assert chips(patron) == 95_000
    # the same bet key for another bet is refused, the others still go through
    other = [
        {"patron": patron, "stake_cents": 4_000, "bet": ROUGE, "key": "k0"},
        {"patron": patron, "stake_cents": 1_000, "bet": ROUGE, "key": "k9"},
    ]
    results = send(api, coup, other, key="batch-C").json()["results"]
    assert [(r["status"], r.get("error"), r.get("field")) for r in results] == [
        ("refused", "idempotency_key_reused", "key"),
        ("accepted", None, None),
    ]
    assert chips(patron) == 94_000


def test_a_batch_on_a_coup_closed_for_bets_is_409_and_places_nothing(coup, api):
    patron = make_patron(100_000)
    round_close_bets(round_id=coup, actor=ACTOR)
    before = store.head()
    response = send(api, coup, [{"patron": patron, "stake_cents": 1_000, "bet": ROUGE}])
    assert response.status_code == 409
    assert (response.json()["error"], response.json()["field"]) == ("state_conflict", "round")
    assert store.head() == before and chips(patron) == 100_000


@pytest.mark.parametrize(
    "bets, why",
    [({"patron": "P1"}, "not a list"), ([], "empty"), ([{"patron": "P1", "stake_cents": 1_000}] * 1_001, "over 1,000")],
)
def test_a_malformed_batch_is_400_on_bets(coup, api, bets, why):
    before = store.head()
    response = send(api, coup, bets)
    assert response.status_code == 400, why
    assert response.json()["field"] == "bets"
    assert store.head() == before


def test_a_batch_of_1000_bets_is_accepted_in_one_transaction(coup, api):
    patrons = [make_patron(20_000) for _ in range(10)]
    bets = [{"patron": patrons[i % 10], "stake_cents": 1_000, "bet": ROUGE} for i in range(1_000)]
    before = Event.objects.count()
    response = send(api, coup, bets)
    assert response.status_code == 201, response.json()
    body = response.json()
    # each patron holds 200 EUR: 20 bets of 10 EUR each, the rest refused for his balance
    assert (body["accepted"], body["refused"]) == (200, 800), body["results"][0]["detail"]
    assert {r["error"] for r in body["results"] if r["status"] == "refused"} == {"insufficient_funds"}
    assert Event.objects.count() == before + 200
    assert all(chips(p) == 0 for p in patrons)


def test_a_dealer_of_another_table_may_not_send_a_batch(coup, table):
    table_open(code="R2", game="english_roulette", opener_cents=1_000_000, actor=ACTOR, rules={})
    staff_user("pit1", "pit_boss")
    dealer = staff_user("dealer7", "dealer")
    dealer_assign(dealer="dealer7", table="R2", actor="pit1")
    client = APIClient()
    client.force_authenticate(dealer)
    patron = make_patron(10_000)
    response = send(client, coup, [{"patron": patron, "stake_cents": 1_000, "bet": ROUGE}])
    assert response.status_code == 403
    assert chips(patron) == 10_000


def test_two_batches_at_once_never_overdraw_one_patron(committed_db, table):
    patron = make_patron(10_000)
    user = staff_user("dealer1", *API_TEST_ROLES)
    coup = round_open(table="R1", actor=ACTOR)["round"]

    def batch(name):
        client = APIClient()
        client.force_authenticate(user)
        bets = [{"patron": patron, "stake_cents": 3_000, "bet": ROUGE, "key": f"{name}{i}"} for i in range(3)]
        return send(client, coup, bets, key=name).json()

    first, second = run_concurrently(lambda: batch("a"), lambda: batch("b"))
    # 100 EUR covers three bets of 30 EUR, in all: whichever batch went first took them
    assert first["accepted"] + second["accepted"] == 3
    assert chips(patron) == 1_000
    assert Bet.objects.filter(round_id=coup).count() == 3
    assert sum(Posting.objects.values_list("amount_cents", flat=True)) == 0


def test_a_baccarat_batch_goes_through_the_baccarat_checks_bet_by_bet(db, api, cage):
    open_by_total("P1", "baccarat")
    assert api.post("/api/tables/P1/shoes", {"mode": "shuffled"}, format="json").status_code == 201
    coup = api.post("/api/tables/P1/rounds", {}, format="json").json()["round"]
    rich, poor = make_patron(100_000), make_patron(1_000)
    bets = [
        {"patron": rich, "bet": "banker", "stake_cents": 10_000, "key": "p1"},
        {"patron": rich, "bet": "tie", "stake_cents": 40_000, "key": "p2"},  # over the 300 EUR maximum
        {"patron": poor, "bet": "player", "stake_cents": 2_000, "key": "p3"},  # holds 10 EUR
        {"patron": poor, "bet": "sideways", "stake_cents": 500, "key": "p4"},
        {"patron": poor, "bet": "player", "stake_cents": 500, "key": "p5"},
    ]
    response = send(api, coup, bets, key="bac-1")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert [(r["status"], r.get("error"), r.get("field"), r.get("kind")) for r in body["results"]] == [
        ("accepted", None, None, None),
        ("refused", "invalid", "stake_cents", "table_maximum"),
        ("refused", "insufficient_funds", "stake_cents", "insufficient_chips"),
        ("refused", "invalid", "bet", None),
        ("accepted", None, None, None),
    ]
    assert chips(rich) == 90_000 and chips(poor) == 500
    assert sorted(Bet.objects.filter(round_id=coup).values_list("stake_cents", flat=True)) == [500, 10_000]
    assert BetRefusal.objects.filter(round_id=coup, kind="table_maximum", stake_cents=40_000).count() == 1
    # resent under a new batch key: the per-bet keys place nothing twice
    again = send(api, coup, bets, key="bac-2").json()
    assert [r.get("replayed") for r in again["results"] if r["status"] == "accepted"] == [True, True]
    assert BetRefusal.objects.filter(round_id=coup).count() == 2  # the two refusals retried under their keys
    assert chips(rich) == 90_000 and chips(poor) == 500
    assert sum(Posting.objects.values_list("amount_cents", flat=True)) == 0


def test_table_limits_hold_per_position_counting_what_the_patron_already_has_on_it(coup, api):
    patron = make_patron(500_000)
    single = api.post(
        f"/api/rounds/{coup}/bets", {"patron": patron, "stake_cents": 10_000, "bet": ROUGE}, format="json"
    )
    assert single.status_code == 201, single.json()
    noir, pair = {"type": "chance_simple", "chance": "noir"}, {"type": "chance_simple", "chance": "pair"}
    bets = [
        {"patron": patron, "stake_cents": 90_000, "bet": ROUGE},  # with the 100 EUR already on it: 1,000 EUR
        {"patron": patron, "stake_cents": 1_000, "bet": ROUGE},  # 1,010 EUR on rouge
        {"patron": patron, "stake_cents": 100_000, "bet": noir},  # another position: its own 1,000 EUR
        {"patron": patron, "stake_cents": 100_001, "bet": pair},
        {"patron": patron, "stake_cents": 500, "bet": pair},  # under the 10 EUR standing minimum
    ]
    body = send(api, coup, bets).json()
    assert [(r["status"], r.get("kind")) for r in body["results"]] == [
        ("accepted", None),
        ("refused", "table_maximum"),
        ("accepted", None),
        ("refused", "table_maximum"),
        ("refused", "table_minimum"),
    ]
    over = "over the table maximum: 1,010.00 EUR on this position, the maximum is 1,000.00 EUR"
    assert over in body["results"][1]["detail"]
    assert chips(patron) == 500_000 - 10_000 - 90_000 - 100_000
    refusals = sorted(BetRefusal.objects.filter(round_id=coup).values_list("kind", "stake_cents"))
    assert refusals == [("table_maximum", 1_000), ("table_maximum", 100_001), ("table_minimum", 500)]


def test_colour_chips_play_any_position_within_its_limits_and_value_chips_only_the_even_chances(
    coup, api, colour_patron
):
    colour = accounts.patron_colour(colour_patron, "R1")
    assert (store.balance(colour), chips(colour_patron)) == (20_000, 80_000)  # 100 red chips of 2 EUR
    plein = {"type": "plein", "numbers": [17]}
    bets = [
        {"patron": colour_patron, "stake_cents": 6_000, "bet": plein, "chips": "colour"},
        {"patron": colour_patron, "stake_cents": 6_000, "bet": plein, "chips": "colour"},  # 120 EUR on 17 > 100
        {"patron": colour_patron, "stake_cents": 6_000, "bet": {"type": "plein", "numbers": [18]}, "chips": "colour"},
        {"patron": colour_patron, "stake_cents": 1_000, "bet": plein},  # value chips on a number
        {"patron": colour_patron, "stake_cents": 300, "bet": {"type": "plein", "numbers": [19]}, "chips": "colour"},
        {"patron": colour_patron, "stake_cents": 10_000, "bet": ROUGE, "chips": "colour"},  # 80 EUR of colour left
        {"patron": colour_patron, "stake_cents": 8_000, "bet": ROUGE, "chips": "colour"},
        {"patron": colour_patron, "stake_cents": 1_000, "bet": ROUGE},  # value chips on an even chance
    ]
    body = send(api, coup, bets).json()
    assert [(r["status"], r.get("error"), r.get("field"), r.get("kind")) for r in body["results"]] == [
        ("accepted", None, None, None),
        ("refused", "invalid", "stake_cents", "table_maximum"),
        ("accepted", None, None, None),
        ("refused", "invalid", "chips", None),
        ("refused", "invalid", "stake_cents", "chip_increment"),
        ("refused", "insufficient_funds", "stake_cents", "insufficient_chips"),
        ("accepted", None, None, None),
        ("accepted", None, None, None),
    ]
    assert "whole number of red chips" in body["results"][4]["detail"]
    assert (store.balance(colour), chips(colour_patron)) == (0, 79_000)
    placed = Bet.objects.filter(round_id=coup).order_by("stake_cents")
    assert [(b.chips, b.stake_cents) for b in placed] == [
        ("value", 1_000),
        ("colour", 6_000),
        ("colour", 6_000),
        ("colour", 8_000),
    ]
    colours = Event.objects.filter(type="BetPlaced", correlation_id=coup).values_list("data__colour", flat=True)
    assert sorted(colours, key=str) == sorted(["red", "red", "red", None], key=str)


def test_a_batch_key_sent_again_with_other_bets_is_refused_and_places_nothing(coup, api):
    patron = make_patron(100_000)
    first = send(api, coup, [{"patron": patron, "stake_cents": 1_000, "bet": ROUGE}], key="batch-X")
    assert first.status_code == 201
    other = send(api, coup, [{"patron": patron, "stake_cents": 2_000, "bet": ROUGE}], key="batch-X")
    assert other.status_code == 409
    assert (other.json()["error"], other.json()["field"]) == ("idempotency_key_reused", "idempotency_key")
    assert chips(patron) == 99_000 and Bet.objects.filter(round_id=coup).count() == 1


def test_a_batch_and_single_placements_at_once_never_overdraw_one_patron(committed_db, table):
    patron = make_patron(10_000)
    user = staff_user("dealer1", *API_TEST_ROLES)
    coup = round_open(table="R1", actor=ACTOR)["round"]

    def client():
        c = APIClient()
        c.force_authenticate(user)
        return c

    def batch():
        bets = [{"patron": patron, "stake_cents": 3_000, "bet": ROUGE, "key": f"b{i}"} for i in range(3)]
        return send(client(), coup, bets).json()["accepted"]

    def single():
        body = {"patron": patron, "stake_cents": 3_000, "bet": ROUGE}
        return 1 if client().post(f"/api/rounds/{coup}/bets", body, format="json").status_code == 201 else 0

    outcomes = run_concurrently(batch, single, single, single)
    # 100 EUR covers three stakes of 30 EUR, however the four commands interleaved
    assert sum(outcomes) == 3, outcomes
    assert chips(patron) == 1_000
    assert sorted(Bet.objects.filter(round_id=coup).values_list("stake_cents", flat=True)) == [3_000] * 3
    assert sum(Posting.objects.values_list("amount_cents", flat=True)) == 0


def test_a_trente_et_quarante_batch_checks_each_bet_and_commits_the_accepted_ones_together(db, api, cage):
    open_by_total("T1", "trente_quarante")
    assert api.post("/api/tables/T1/shoes", {"mode": "shuffled"}, format="json").status_code == 201
    coup = api.post("/api/tables/T1/rounds", {}, format="json").json()["round"]
    rich, poor = make_patron(300_000), make_patron(1_000)
    bets = [
        {"patron": rich, "bet": "rouge", "stake_cents": 10_000, "key": "t1"},
        {"patron": rich, "bet": "tie", "stake_cents": 1_000, "key": "t2"},  # no tie bet at trente-et-quarante
        {"patron": rich, "bet": "noir", "stake_cents": 200_000, "key": "t3"},  # over the 1,000 EUR maximum
        {"patron": poor, "bet": "couleur", "stake_cents": 2_000, "key": "t4"},  # holds 10 EUR
        {"patron": poor, "bet": "inverse", "stake_cents": 1_000, "key": "t5"},
        {"patron": rich, "bet": "noir", "stake_cents": 5_000, "key": "t6"},
    ]
    before = store.head()[0]  # (position, hash)
    body = send(api, coup, bets, key="tq-1").json()
    assert [(r["status"], r.get("error"), r.get("field"), r.get("kind")) for r in body["results"]] == [
        ("accepted", None, None, None),
        ("refused", "invalid", "bet", None),
        ("refused", "invalid", "stake_cents", "table_maximum"),
        ("refused", "insufficient_funds", "stake_cents", "insufficient_chips"),
        ("accepted", None, None, None),
        ("accepted", None, None, None),
    ]
    assert chips(rich) == 285_000 and chips(poor) == 0
    # the three accepted bets' events follow one another: one command, nothing in between
    placed = list(
        Event.objects.filter(type="BetPlaced", position__gt=before).order_by("position").values_list("position", "data")
    )
    assert [data["position"]["bet"] for _, data in placed] == ["rouge", "inverse", "noir"]
    assert [p for p, _ in placed] == list(range(placed[0][0], placed[0][0] + 3))
    assert BetRefusal.objects.filter(round_id=coup, kind="table_maximum", stake_cents=200_000).count() == 1
    assert sum(Posting.objects.values_list("amount_cents", flat=True)) == 0


@pytest.mark.parametrize("game", ["roulette", "baccarat"])
def test_a_batch_failing_after_its_bets_were_checked_leaves_none_of_them(db, api, cage, monkeypatch, game):
    if game == "roulette":
        table_open(code="R1", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={})
        coup = round_open(table="R1", actor=ACTOR)["round"]
        shape = {"bet": ROUGE}
    else:
        open_by_total("P1", "baccarat")
        api.post("/api/tables/P1/shoes", {"mode": "shuffled"}, format="json")
        coup = api.post("/api/tables/P1/rounds", {}, format="json").json()["round"]
        shape = {"bet": "player"}
    patrons = [make_patron(10_000) for _ in range(3)]
    before = (store.head(), Bet.objects.count())

    def broken(*args, **kwargs):
        raise RuntimeError("the disk is gone")

    # the per-bet keys are written last, after every bet was placed and appended
    monkeypatch.setattr(bet_batches, "_copy", broken)
    monkeypatch.setattr(IdempotencyRecord.objects, "bulk_create", broken)
    bets = [{"patron": p, "stake_cents": 1_000, "key": f"k{i}", **shape} for i, p in enumerate(patrons)]
    with pytest.raises(RuntimeError):
        bet_batch_place(round_id=coup, bets=bets, actor=ACTOR)
    assert (store.head(), Bet.objects.count()) == before
    assert [chips(p) for p in patrons] == [10_000] * 3


def test_a_black_jack_batch_sees_its_own_earlier_bets_on_a_box(db, api, cage):
    # Bets behind with boxes free: sheet 004's way (sheet 000 waits for a full table).
    open_by_total("B1", "blackjack", rules={"behind_only_when_full": False})
    assert api.post("/api/tables/B1/shoes", {"mode": "shuffled"}, format="json").status_code == 201
    coup = api.post("/api/tables/B1/rounds", {}, format="json").json()["round"]
    seated, behind, late, stray = (make_patron(50_000) for _ in range(4))
    bets = [
        {"patron": behind, "box": 1, "stake_cents": 1_000},  # nobody seated on box 1 yet
        {"patron": seated, "box": 1, "stake_cents": 2_000, "seated": True},
        {"patron": behind, "box": 1, "stake_cents": 1_000},  # behind the player just seated
        {"patron": late, "box": 1, "stake_cents": 2_000, "seated": True},  # the seat is taken
        {"patron": stray, "box": 9, "stake_cents": 1_000, "seated": True},
    ]
    body = send(api, coup, bets).json()
    assert [(r["status"], r.get("field")) for r in body["results"]] == [
        ("refused", "seated"),
        ("accepted", None),
        ("accepted", None),
        ("refused", "seated"),
        ("refused", "box"),
    ]
    assert [chips(p) for p in (seated, behind, late, stray)] == [48_000, 49_000, 50_000, 50_000]
    placed = Bet.objects.filter(round_id=coup).order_by("stake_cents")
    assert [(b.patron.code, b.position["box"], b.position["seated"]) for b in placed] == [
        (behind, 1, False),
        (seated, 1, True),
    ]
