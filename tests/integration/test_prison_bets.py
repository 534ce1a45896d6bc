"""Prison bets at French roulette (zero_rule = en_prison) and trente-et-quarante (un après)
through the ledger (RULES.md §Prison bets, case C08 en prison): each double_prison rule, a void
coup, a table closing with prisoners; a coup that moved stakes in or out of prison is never
reversed, the prison rules do not change while bets are in prison; the prison account always
holds exactly the imprisoned stakes, across the games migrations too."""

import pytest
from django.core.management import call_command
from django.db import connection
from rest_framework.test import APIClient

from games.models import Bet
from games.selectors import settlements_net_cents, table_win_cents
from games.services.bets import bet_place
from games.services.corrections import round_reverse
from games.services.rounds import round_close_bets, round_open, round_record_result, round_void
from games.services.tables import table_close, table_open
from ledger import accounts, projections, store
from ledger.errors import StateConflict
from ledger.models import AccountBalance, TableDayStats
from ledger.replay import replay_check
from ledger.verify import verify_chain
from staff.roles import grant
from tests.conftest import ACTOR, make_patron, open_by_total, staff_user


@pytest.fixture(autouse=True)
def _database(request):
    """``db`` unless the test asks for ``committed_db`` (which flushes after resetting its role)."""
    if "committed_db" not in request.fixturenames:
        request.getfixturevalue("db")


def spin(number, bets=()):
    coup = round_open(table="F1", actor=ACTOR)["round"]
    for patron, chance, stake in bets:
        bet_place(
            round_id=coup,
            patron=patron,
            stake_cents=stake,
            bet={"type": "chance_simple", "chance": chance},
            actor=ACTOR,
        )
    round_close_bets(round_id=coup, actor=ACTOR)
    return round_record_result(round_id=coup, number=number, actor=ACTOR)


def chips(code):
    return store.balance(accounts.patron_chips(code))


@pytest.fixture
def french(cage):
    def open_with(**rules):
        table_open(
            code="F1",
            game="english_roulette",
            opener_cents=1_000_000,
            actor=ACTOR,
            rules={"zero_rule": "en_prison", **rules},
        )

    return open_with


def test_c08_en_prison_then_released_then_lost(french):
    """10 on pair, ball on 0: imprisoned (never +10); next spin 2: 10 returned, no win."""
    french()
    p = make_patron(10_000)
    spin(0, [(p, "pair", 1_000)])
    assert chips(p) == 9_000 and store.balance(accounts.table_prison("F1")) == 1_000
    assert Bet.objects.get().state == "imprisoned"
    spin(2)
    assert chips(p) == 10_000 and store.balance(accounts.table_prison("F1")) == 0
    assert Bet.objects.get().state == "released"
    spin(0, [(p, "pair", 1_000)])
    spin(7)  # odd: the imprisoned bet is lost
    assert chips(p) == 9_000 and Bet.objects.filter(state="lost").count() == 1
    assert table_win_cents("F1") == settlements_net_cents("F1")["house_win"] == 1_000
    assert replay_check() == [] and verify_chain().ok
    # the statistics count the stakes prison decided too: 2 bets of 10, both decided
    projections.catch_up_all()
    stats = TableDayStats.objects.get(table="F1")
    assert (stats.bets, stats.handle_cents, stats.win_cents) == (2, 2_000, 1_000)


def test_a_second_zero_follows_double_prison(french):
    french(double_prison="stay")
    p = make_patron(10_000)
    spin(0, [(p, "rouge", 1_000)])
    spin(0)  # stays in prison
    assert Bet.objects.get().state == "imprisoned"
    spin(1)  # red: released
    assert chips(p) == 10_000


def test_the_prison_balance_is_rebuilt_from_the_ledger(french):
    french()
    p = make_patron(10_000)
    spin(0, [(p, "manque", 2_000), (p, "passe", 1_000)])
    projections.catch_up_all()
    before = AccountBalance.objects.get(account=accounts.table_prison("F1")).balance_cents
    projections.rebuild()
    assert before == AccountBalance.objects.get(account=accounts.table_prison("F1")).balance_cents == 3_000


@pytest.mark.parametrize("rule, returned", [("half_returned", 500), ("returned", 1_000)])
def test_a_table_closes_through_prison_on_close(french, rule, returned):
    french(prison_on_close=rule)
    p = make_patron(10_000)
    spin(0, [(p, "noir", 1_000)])
    table_close(code="F1", actor=ACTOR)
    assert chips(p) == 9_000 + returned and store.balance(accounts.table_prison("F1")) == 0
    assert table_win_cents("F1") == settlements_net_cents("F1")["house_win"] == 1_000 - returned
    assert replay_check() == []


def test_the_in_prison_index_holds_exactly_the_imprisoned_bets(french):
    """``prison_level > 0`` (the in-prison index's condition) exactly when imprisoned, by a check
    constraint: a bet in any other state with a level, or imprisoned without one, is refused."""
    from django.db import IntegrityError, connection, transaction

    french(double_prison="deeper")
    p = make_patron(10_000)
    spin(0, [(p, "pair", 1_000), (p, "impair", 2_000)])
    spin(0)  # deeper: level 2
    assert sorted(Bet.objects.in_prison().values_list("stake_cents", "prison_level")) == [(1_000, 2), (2_000, 2)]
    imprisoned = Bet.objects.in_prison().first()
    with pytest.raises(IntegrityError), transaction.atomic():
        Bet.objects.filter(pk=imprisoned.pk).update(prison_level=0)
    spin(5)  # impair wins: level 1; pair loses: lost
    assert list(Bet.objects.in_prison().values_list("stake_cents", "prison_level")) == [(2_000, 1)]
    lost = Bet.objects.get(stake_cents=1_000)
    assert (lost.state, lost.prison_level) == ("lost", 0)
    with pytest.raises(IntegrityError), transaction.atomic():
        Bet.objects.filter(pk=lost.pk).update(prison_level=1)
    if connection.vendor == "postgresql":  # room on each page for the one update a bet gets
        with connection.cursor() as cursor:
            cursor.execute("SELECT reloptions FROM pg_class WHERE relname = 'games_bet'")
            assert cursor.fetchone()[0] == ["fillfactor=50"]


# --- double prison, void coups, closing, reversals, rules changes, migrations ---------------------


def _constraints(table: str) -> set[str]:
    with connection.cursor() as cursor:
        return set(connection.introspection.get_constraints(cursor, table))


@pytest.fixture
def staff(django_user_model):
    for name, role in {"pit1": "pit_boss", "super1": "cage_supervisor"}.items():
        grant(django_user_model.objects.create_user(username=name, password="x"), role)


def _spin_coup(number, bets=(), *, void=False):
    """A coup at F1 with ``bets`` (patron, chance, stake); its id. ``void``: voided instead of spun."""
    coup = round_open(table="F1", actor=ACTOR)["round"]
    for patron, chance, stake in bets:
        bet = {"type": "chance_simple", "chance": chance}
        bet_place(round_id=coup, patron=patron, stake_cents=stake, bet=bet, actor=ACTOR)
    if void:
        round_void(round_id=coup, reason="ball off the wheel", actor=ACTOR)
        return coup
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=number, actor=ACTOR)
    return coup


def _levels():
    return sorted(Bet.objects.in_prison().values_list("stake_cents", "prison_level"))


def _consistent(table="F1"):
    """Every bet obeys the constraint, the state-only and in_prison() reads agree, the prison
    account holds exactly the imprisoned stakes, replay and chain hold."""
    by_state = Bet.objects.filter(state=Bet.State.IMPRISONED)
    assert set(by_state.values_list("pk", flat=True)) == set(Bet.objects.in_prison().values_list("pk", flat=True))
    assert not Bet.objects.exclude(state=Bet.State.IMPRISONED).exclude(prison_level=0).exists()
    held = sum(by_state.filter(round__table__code=table).values_list("stake_cents", flat=True))
    assert store.balance(accounts.table_prison(table)) == held
    assert replay_check() == [] and verify_chain().ok


@pytest.mark.parametrize(
    "rule, numbers, levels",
    [
        ("deeper", [0, 0, 0], [(1_000, 3), (2_000, 3)]),
        ("deeper", [0, 0, 0, 2], [(1_000, 2)]),  # pair wins a level back, impair is lost
        ("deeper", [0, 0, 2, 2], []),  # pair released after two wins; impair lost
        ("stay", [0, 0, 0], [(1_000, 1), (2_000, 1)]),
        ("stay", [0, 0, 3], []),  # impair released, pair lost
        ("lose", [0, 0], []),
    ],
)
def test_zero_after_zero_follows_each_double_prison_rule(french, rule, numbers, levels):
    """Zero after zero under each double_prison, then numbers: no IntegrityError, the levels
    as RULES.md says, the constraint and the prison account hold after each spin."""
    french(double_prison=rule)
    p = make_patron(10_000)
    _spin_coup(numbers[0], [(p, "pair", 1_000), (p, "impair", 2_000)])
    for number in numbers[1:]:
        _spin_coup(number)
        _consistent()
    assert _levels() == levels


@pytest.mark.parametrize("rule", ["half_returned", "returned"])
def test_a_table_closes_with_prisoners_at_several_levels(french, rule):
    """A prisoner at level 2 and a new one at level 1 when the table closes: both released by
    prison_on_close, no IntegrityError, nothing left in prison."""
    french(double_prison="deeper", prison_on_close=rule)
    p = make_patron(10_000)
    _spin_coup(0, [(p, "rouge", 1_000)])
    _spin_coup(0, [(p, "noir", 1_500)])
    assert _levels() == [(1_000, 2), (1_500, 1)]
    table_close(code="F1", actor=ACTOR)
    assert _levels() == [] and set(Bet.objects.values_list("state", "prison_level")) == {("released", 0)}
    _consistent()


def test_a_void_coup_leaves_the_prisoners_in_prison(french):
    """Voiding a coup with new bets while an earlier coup's stake is in prison: the new bets are
    returned (level 0), the prisoner stays (level 1) and the next spin decides it."""
    french()
    p = make_patron(10_000)
    _spin_coup(0, [(p, "manque", 1_000)])
    _spin_coup(None, [(p, "passe", 1_700)], void=True)
    assert _levels() == [(1_000, 1)]
    assert Bet.objects.get(stake_cents=1_700).state == "returned"
    _consistent()
    _spin_coup(5)  # manque wins: released
    assert _levels() == []
    _consistent()


def test_a_coup_with_a_stake_in_prison_cannot_be_reversed(french, staff):
    """round_reverse of the coup whose stake is in prison: 409 StateConflict, nothing written."""
    french()
    p = make_patron(10_000)
    coup = _spin_coup(0, [(p, "pair", 1_000)])
    head = store.head()
    with pytest.raises(StateConflict, match="sent stakes to prison"):
        round_reverse(round_id=coup, reason="wrong number", approver="super1", actor="pit1")
    assert store.head() == head


# games/services/corrections.py, PRISON_EVENTS: a coup that moved stakes in or out of prison is
# not reversed.
def test_the_coup_that_released_a_prisoner_cannot_be_reversed(french, staff):
    """The second coup released the first coup's prisoner (prison -10, patron +10 in the second
    coup's stream). Reversing it would turn those postings round: the prison account would hold
    10 EUR again with no bet in prison (the bet stays ``released``), a balance nothing would ever
    resolve. It is refused (409, naming the round); the prison account still matches."""
    french()
    p = make_patron(10_000)
    _spin_coup(0, [(p, "pair", 1_000)])
    second = _spin_coup(2)
    assert Bet.objects.get().state == "released"
    head = store.head()
    with pytest.raises(StateConflict, match="decided prison bets: it cannot be reversed") as refused:
        round_reverse(round_id=second, reason="wrong number", approver="super1", actor="pit1")
    assert refused.value.field == "round" and store.head() == head
    _consistent()


def test_the_imprisoning_coup_cannot_be_reversed_after_its_prisoner_was_released(french, staff):
    """The first coup put 10 EUR in prison, the second released it to the patron. Reversing the
    first coup would take the stake out of the prison again (prison -10) and give it back to the
    patron a second time: refused, the prison account stays at 0."""
    french()
    p = make_patron(10_000)
    first = _spin_coup(0, [(p, "pair", 1_000)])
    _spin_coup(2)
    head = store.head()
    with pytest.raises(StateConflict, match="sent stakes to prison"):
        round_reverse(round_id=first, reason="wrong number", approver="super1", actor="pit1")
    assert store.head() == head and store.balance(accounts.table_prison("F1")) == 0
    _consistent()


# --- trente-et-quarante -------------------------------------------------------------------------------

APRES = ["TS", "TC", "TH", "AS", "TD", "TH", "TS", "AD"]  # noir 31, rouge 31: un après
ROUGE_WINS = ["TS", "TC", "TH", "5S", "TD", "TH", "TS", "AD"]  # noir 35, rouge 31: rouge, inverse
REFAIT = ["TS", "TC", "TH", "2S", "TD", "TH", "TS", "2D"]  # noir 32, rouge 32: refait


def _tq_api():
    client = APIClient()
    client.force_authenticate(staff_user("floor1", "pit_boss", "cashier"))
    return client


def _tq_open(api, **rules):
    open_by_total("T1", "trente_quarante", rules=rules, actor="floor1")
    assert api.post("/api/tables/T1/shoes", {"mode": "reader"}, format="json").status_code == 201


def _tq_coup(api, bets, cards):
    round_id = api.post("/api/tables/T1/rounds", {}, format="json").json()["round"]
    for patron, bet, stake in bets:
        body = {"patron": patron, "bet": bet, "stake_cents": stake}
        response = api.post(f"/api/rounds/{round_id}/trente-quarante-bets", body, format="json")
        assert response.status_code == 201, response.json()
    assert api.post(f"/api/rounds/{round_id}/close-bets", {}, format="json").status_code == 200
    assert api.post(f"/api/rounds/{round_id}/deal", {}, format="json").status_code == 200
    for card in cards:
        response = api.post(f"/api/rounds/{round_id}/cards", {"card": card}, format="json")
        assert response.status_code == 200, (card, response.status_code, response.content[:300])
    return round_id


@pytest.mark.parametrize(
    "rule, coups, levels",
    [
        ("deeper", [APRES, APRES], [(1_000, 2), (2_000, 2)]),
        ("deeper", [APRES, APRES, ROUGE_WINS], [(1_000, 1)]),
        ("stay", [APRES, APRES, REFAIT], [(1_000, 1), (2_000, 1)]),
        ("lose", [APRES, APRES], []),
    ],
)
def test_un_apres_after_un_apres_follows_each_double_prison_rule_and_the_close_releases(cage, rule, coups, levels):
    """Un après after un après under each double_prison, refait, a win, then the table closes:
    every request answered 200/201 (no IntegrityError, no 500), levels as the rules say."""
    api = _tq_api()
    _tq_open(api, double_prison=rule)
    red, black = make_patron(10_000), make_patron(10_000)
    _tq_coup(api, [(red, "rouge", 1_000), (black, "noir", 2_000)], coups[0])
    for cards in coups[1:]:
        _tq_coup(api, [], cards)
        _consistent("T1")
    assert _levels() == levels
    table_close(code="T1", actor=ACTOR)
    assert _levels() == []
    _consistent("T1")


def test_new_bets_go_to_prison_beside_old_prisoners_at_trente_quarante(cage):
    """An après with a prisoner already at level 1 (deeper) and a new free bet: the old one goes
    to level 2 and the new one enters at level 1, in one coup."""
    api = _tq_api()
    _tq_open(api, double_prison="deeper")
    p = make_patron(10_000)
    _tq_coup(api, [(p, "rouge", 1_000)], APRES)
    _tq_coup(api, [(p, "noir", 600)], APRES)
    assert _levels() == [(600, 1), (1_000, 2)]
    _consistent("T1")


# games/services/table_rules.py, PRISON_OPTIONS: leaving en_prison (or deeper) with bets in prison
# would make every later spin of the table fail (400 prison_level).
@pytest.mark.parametrize(
    "opened, changed",
    [({}, {"zero_rule": "la_partage"}), ({"double_prison": "deeper"}, {"double_prison": "stay"})],
)
def test_a_rules_change_with_prisoners_does_not_wedge_the_table(french, staff, opened, changed):
    """A prisoner (level 2 under deeper), then the pit boss changes the prison rules between
    coups: either the change is refused while bets are in prison, or the next spin settles."""
    from basis.errors import RuleError
    from games.services.table_rules import table_rules_change

    french(**opened)
    p = make_patron(10_000)
    _spin_coup(0, [(p, "pair", 1_000)])
    if opened:
        _spin_coup(0)
    with pytest.raises(StateConflict, match="bets are in prison at F1") as refused:
        table_rules_change(code="F1", rules=changed, actor="pit1")
    assert refused.value.field == "rules"
    assert table_rules_change(code="F1", rules={"max_bet_cents": 50_000}, actor="pit1")["changed"] == [
        "max_bet_cents"
    ]  # the limits may still change
    try:
        _spin_coup(2)
        if opened:
            _spin_coup(2)  # deeper: level 2 -> 1 -> released
    except RuleError as exc:
        pytest.fail(f"the spin after the refused change is refused: {exc}")
    assert not Bet.objects.in_prison().exists()
    assert table_rules_change(code="F1", rules=changed, actor="pit1")["changed"] == sorted(changed)
    _consistent()


def test_games_migrates_back_and_forth_over_prisoners(committed_db, cage):
    """games back to 0010 (the state-conditioned index, no check, fillfactor 100) and forward
    with imprisoned, released and lost bets in the table: the check constraint validates them,
    the in-prison index and fillfactor come back, a spin then resolves the prisoners."""
    table_open(
        code="F1", game="english_roulette", opener_cents=1_000_000, actor=ACTOR, rules={"zero_rule": "en_prison"}
    )
    p = make_patron(10_000)
    _spin_coup(0, [(p, "pair", 1_000), (p, "impair", 2_000)])
    _spin_coup(0, [(p, "rouge", 1_500)])
    _spin_coup(3)  # 3, red and odd: every prisoner decided
    _spin_coup(0, [(p, "noir", 1_200)])
    before = sorted(Bet.objects.values_list("stake_cents", "state", "prison_level"))
    try:
        call_command("migrate", "games", "0010_bet_refusal_idempotency_key", verbosity=0)
        names = _constraints("games_bet")
        assert "games_bet_imprisoned" in names and "games_bet_prison_level_iff_imprisoned" not in names
    finally:
        # Every app forward: going back over games also took back the migrations that depend
        # on it (cashier's, whose credit lines and markers are tables).
        call_command("migrate", verbosity=0)
    names = _constraints("games_bet")
    assert {"games_bet_in_prison", "games_bet_prison_level_iff_imprisoned"} <= names
    assert "games_bet_imprisoned" not in names
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = 'games_bet'")
        assert cursor.fetchone()[0] == ["fillfactor=50"]
    assert sorted(Bet.objects.values_list("stake_cents", "state", "prison_level")) == before
    assert _levels() == [(1_200, 1)]
    _spin_coup(4)  # black: noir released
    assert _levels() == []
    _consistent()
