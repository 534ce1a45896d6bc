"""Breaker, session 8: the audit projection of one line an event (4d9147a, ledger 0007), the
bets' in-prison index and check constraint (d66461e, games 0011), and the ledger's events
without a hash index and with a partial unique idempotency key (b715b9c, ledger 0008).

Probes that held are ``test_probe_...``; faults found are ``xfail(strict=True)`` with a
``FAULT:`` reason."""

import itertools

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from rest_framework.test import APIClient

from games.models import Bet
from games.services.bets import bet_place
from games.services.corrections import round_reverse
from games.services.rounds import round_close_bets, round_open, round_record_result, round_void
from games.services.tables import table_close, table_open
from ledger import accounts, projections, store
from ledger.errors import IdempotencyKeyReused, StateConflict
from ledger.models import AuditEntry, Event
from ledger.replay import replay_check
from ledger.store import _COPY_FROM, Leg, NewEvent, append
from ledger.verify import verify_chain
from staff.roles import grant
from tests.conftest import ACTOR, make_patron, staff_user


@pytest.fixture(autouse=True)
def _database(request):
    """``db`` unless the test asks for ``committed_db`` (which flushes after resetting its role)."""
    if "committed_db" not in request.fixturenames:
        request.getfixturevalue("db")


def _rows() -> list[tuple]:
    return list(
        AuditEntry.objects.order_by("position").values_list("position", "patron", "table", "round", "type", "summary")
    )


def _append(stream: str, events: list[NewEvent], **kwargs) -> list[Event]:
    with transaction.atomic():
        return append(stream=stream, expected_version=0, actor="t", events=events, **kwargs)


# --- the audit projection -------------------------------------------------------------------------

ODD_AUDIT = [
    ("Odd", {"patron": 7, "table": "T1"}, (None, "T1", None)),
    ("Odd", {"patron": "", "table": "", "round": ""}, None),
    ("Odd", {"patron": None, "round": "R9"}, (None, None, "R9")),
    ("Odd", {"patron": {"code": "P1"}, "table": ["T1"], "round": {"round": "R1"}}, None),
    ("Odd", ["patron", "P1"], None),
    ("Odd", "P1", None),
    ("Odd", 5, None),
    ("Odd", {}, None),
    ("Odd", {"patron": True, "table": 0, "round": False}, None),
    ("Odd", {"patron": "P" * 64}, ("P" * 64, None, None)),
    ("Odd", {"patron": " ", "table": "T\u2028é😀"}, (" ", "T\u2028é😀", None)),
    ("Odd", {"nested": {"patron": "P1", "table": "T1"}}, None),
    ("BetPlaced", {"patron": "P1", "table": "T1", "round": "R1"}, ("P1", "T1", "R1")),  # summary falls back
    ("RoundVoided", {"round": "R1", "table": "T1"}, (None, "T1", "R1")),  # no reason: fallback
    ("ChipsPurchased", {"patron": "P1", "amount_cents": "lots"}, ("P1", None, None)),
]


def test_probe_odd_event_data_gives_the_same_audit_rows_by_catch_up_and_rebuild():
    """Keys that are ints, bools, empty, None, nested, or data that is no dict: no line for that
    timeline (and no row without any); 64 characters, a blank, unicode: a line. Catch-up (in
    batches of 1, 3 and all) and rebuild write the same rows on both databases."""
    _append("brk8/odd", [NewEvent(kind, data, []) for kind, data, _ in ODD_AUDIT])
    expected = [(i + 1, *keys) for i, (_, _, keys) in enumerate(ODD_AUDIT) if keys is not None]
    projections.catch_up("audit", batch=1)
    caught_up = _rows()
    assert [row[:4] for row in caught_up] == expected
    assert dict((row[0], row[5]) for row in caught_up)[13] == "BetPlaced patron=P1, round=R1, table=T1"
    for size in (3, 5000):
        projections.rebuild(["audit"], batch=size)
        assert _rows() == caught_up
    projections.truncate(AuditEntry)
    projections.rebuild()
    assert _rows() == caught_up
    assert verify_chain().ok


def test_probe_audit_rows_of_a_copy_sized_append_and_a_rebuild_over_several_batches():
    """A ``_COPY_FROM``-sized append (the events themselves by COPY) projected in batches that
    cut it anywhere; the rebuild with a batch smaller than the ledger (read-ahead on
    PostgreSQL) gives the same rows."""
    events = [
        NewEvent("Burst", {"patron": f"P{i % 7}", "round": "" if i % 3 else f"R{i}"}, [])
        for i in range(_COPY_FROM + 13)
    ]
    _append("brk8/copy", events)
    projections.catch_up("audit", batch=97)
    caught_up = _rows()
    assert len(caught_up) == len(events)
    assert sum(1 for row in caught_up if row[3]) == len([i for i in range(len(events)) if i % 3 == 0])
    projections.rebuild(["audit"], batch=128)
    assert _rows() == caught_up


# Was a FAULT (fixed in ledger/projections/audit.py, _position): ``.get`` on a position that is
# not an object raised AttributeError, which stopped the projection.
@pytest.mark.parametrize("position", [[1, 2], "straight 17", 17])
def test_a_known_event_type_whose_position_is_not_an_object_still_gets_its_line(position):
    """``summary`` of a BetPlaced/BetSettled whose ``position`` is a list, a string or a number
    (data the ledger accepts from any writer): the projection must not stop on it."""
    data = {"patron": "P1", "table": "T1", "stake_cents": 100, "chips": 1, "position": position}
    _append(
        "brk8/pos",
        [NewEvent("BetPlaced", data, []), NewEvent("BetSettled", {**data, "outcome": "won", "return_cents": 0}, [])],
    )
    projections.catch_up("audit")
    assert [row[:3] for row in _rows()] == [(1, "P1", "T1"), (2, "P1", "T1")]
    if not isinstance(position, int):
        assert AuditEntry.objects.get(position=1).summary == f"P1 bets 1.00 EUR on {position} (1 chips)"


# Was a FAULT on PostgreSQL (fixed in ledger/projections/audit.py, _key): the binary COPY into
# the varchar(64) column refused the row, and the projection could never pass that event.
def test_a_timeline_key_of_more_than_64_characters_does_not_stop_the_audit_projection():
    """A patron, table or round of 65+ characters (the ledger takes any data) names no timeline
    (codes are 20 characters at most, a round id 36); the event's other timelines keep it."""
    _append(
        "brk8/long", [NewEvent("Odd", {"patron": "P" * 65, "table": "T1"}, []), NewEvent("Odd", {"table": "T1"}, [])]
    )
    projections.catch_up("audit")
    assert AuditEntry.objects.filter(table="T1").count() == 2
    assert list(AuditEntry.objects.values_list("patron", flat=True)) == [None, None]
    projections.rebuild(["audit"])
    assert AuditEntry.objects.filter(table="T1").count() == 2


# --- the audit trail API ---------------------------------------------------------------------------

_USERS = itertools.count()


def _client(role: str = "auditor") -> APIClient:
    client = APIClient()
    client.force_authenticate(staff_user(f"brk8-{role}-{next(_USERS)}", role))
    return client


def test_probe_audit_trail_roles_unknown_scope_empty_and_pagination():
    """auditor, pit_boss, cashier read a trail; dealer and runner get 403; an unknown scope is
    404, an unknown key an empty page; 150 lines page by limit/offset in position order."""
    _append("brk8/api", [NewEvent("Odd", {"patron": "PAG", "table": "T1" if i % 2 else ""}, []) for i in range(150)])
    projections.catch_up("audit")
    for role, status in (("auditor", 200), ("pit_boss", 200), ("cashier", 200), ("dealer", 403), ("runner", 403)):
        assert _client(role).get("/api/audit/patron/PAG/").status_code == status, role
    client = _client()
    for scope in ("nope", "position", "pk", "type", "summary", "Patron", "patron__in"):
        assert client.get(f"/api/audit/{scope}/PAG/").status_code == 404, scope
    for scope in ("patron", "table", "round"):
        body = client.get(f"/api/audit/{scope}/missing/").json()
        assert body["count"] == 0 and body["results"] == []
    first = client.get("/api/audit/patron/PAG/").json()
    assert first["count"] == 150 and len(first["results"]) == 100 and first["next"]
    second = client.get(first["next"]).json()
    positions = [line["position"] for line in first["results"] + second["results"]]
    assert positions == list(range(1, 151))
    assert client.get("/api/audit/table/T1/?limit=10&offset=70").json()["results"][0]["position"] == 142
    assert client.get("/api/audit/patron/" + "P" * 300 + "/").json()["count"] == 0


def test_probe_audit_trail_with_a_nul_or_odd_characters_in_the_key_is_not_a_500():
    """A key with NUL (PostgreSQL refuses NUL in text), percent-escapes, spaces: an answer, not a 500."""
    _append("brk8/nul", [NewEvent("Odd", {"patron": "P 1/é"}, [])])
    projections.catch_up("audit")
    client = _client()
    assert client.get("/api/audit/patron/P%201%2F%C3%A9/").status_code in (200, 404)
    assert client.get("/api/audit/patron/P%00x/").status_code in (200, 400, 404)
    assert client.get("/api/audit/patron/P%201/").json()["count"] == 0


# --- ledger events: hash and idempotency key ----------------------------------------------------


def test_probe_the_event_table_indexes():
    """PostgreSQL: no unique hash index, idempotency key unique only where not NULL (partial)."""
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's indexes")
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'ledger_event'")
        indexes = dict(cursor.fetchall())
    assert not any("(hash)" in definition for definition in indexes.values()), indexes
    partial = indexes["ledger_event_idempotency_key_uniq"]
    assert "UNIQUE" in partial and "WHERE (idempotency_key IS NOT NULL)" in partial
    assert [name for name, d in indexes.items() if "(idempotency_key)" in d] == ["ledger_event_idempotency_key_uniq"]


@pytest.mark.parametrize("sizes", [(1, 1), (3, _COPY_FROM), (_COPY_FROM, 2), (_COPY_FROM, _COPY_FROM + 1)])
def test_probe_a_duplicate_idempotency_key_is_refused_and_the_caller_goes_on(sizes):
    """Two appends with the same key, by JSON (small) or COPY (>= _COPY_FROM) batches: the
    second is refused (IntegrityError), writes nothing, and the caller's transaction goes on;
    within a batch only the first event carries the key (many NULLs, no conflict)."""
    first, second = sizes

    def events(n: int, tag: str) -> list[NewEvent]:
        return [NewEvent("Dup", {"patron": f"{tag}{i}"}, [Leg("dup:a", 1 + i), Leg("dup:b", -1 - i)]) for i in range(n)]

    with transaction.atomic():
        append(stream="brk8/dup-a", expected_version=0, actor="t", events=events(first, "a"), idempotency_key="K")
        head = store.head()
        with pytest.raises(IntegrityError):
            append(stream="brk8/dup-b", expected_version=0, actor="t", events=events(second, "b"), idempotency_key="K")
        assert store.head() == head
        append(stream="brk8/dup-c", expected_version=0, actor="t", events=events(second, "c"), idempotency_key="K2")
    assert Event.objects.count() == first + second
    assert list(Event.objects.exclude(idempotency_key=None).values_list("idempotency_key", flat=True)) == ["K", "K2"]
    assert Event.objects.filter(idempotency_key=None).count() == first + second - 2
    assert verify_chain().ok
    projections.catch_up("audit")
    assert AuditEntry.objects.count() == first + second


def test_probe_a_command_retried_with_its_idempotency_key_is_replayed_not_refused(cage):
    """Through ``ledger_command``: the same key and request is answered from the record (one
    event); the same key for another request is a 409, not an IntegrityError."""
    from cashier.services.cage import chips_purchase

    patron = make_patron()
    first = chips_purchase(patron=patron, amount_cents=500, actor=ACTOR, idempotency_key="retry-1")
    events = Event.objects.count()
    assert chips_purchase(patron=patron, amount_cents=500, actor=ACTOR, idempotency_key="retry-1") == first
    assert Event.objects.count() == events
    with pytest.raises(IdempotencyKeyReused):
        chips_purchase(patron=patron, amount_cents=600, actor=ACTOR, idempotency_key="retry-1")
    assert Event.objects.filter(idempotency_key="retry-1").count() == 1


def _constraints(table: str) -> set[str]:
    with connection.cursor() as cursor:
        return set(connection.introspection.get_constraints(cursor, table))


@pytest.mark.parametrize(
    "old", ["0007_audit_entry_one_line_an_event", "0006_audit_entry_composite_key", "0005_drop_pattern_indexes"]
)
def test_probe_ledger_migrates_back_and_forth_with_events_and_keys(committed_db, old):
    """Back to 0007/0006/0005 with events (keys and many NULL keys, a COPY-sized batch) and
    audit lines, an append meanwhile, forward again: the old unique constraints come back and
    go, the chain verifies, duplicate keys are still refused, the audit rows come back the same."""
    _append(
        "brk8/mig-a",
        [NewEvent("Odd", {"patron": f"P{i}", "table": "T1"}, []) for i in range(_COPY_FROM)],
        idempotency_key="M1",
    )
    _append("brk8/mig-b", [NewEvent("Odd", {"round": "R1"}, [])], idempotency_key="M2")
    projections.catch_up("audit")
    before = _rows()
    try:
        call_command("migrate", "ledger", old, verbosity=0)
        names = _constraints("ledger_event")
        assert {"ledger_event_hash_key", "ledger_event_idempotency_key_key"} <= names
        assert "ledger_event_idempotency_key_uniq" not in names
        _append("brk8/mig-c", [NewEvent("Odd", {"table": "T2"}, [])], idempotency_key="M3")
    finally:
        call_command("migrate", "ledger", verbosity=0)
    names = _constraints("ledger_event")
    assert "ledger_event_hash_key" not in names and "ledger_event_idempotency_key_key" not in names
    assert "ledger_event_idempotency_key_uniq" in names
    with pytest.raises(IntegrityError):
        _append("brk8/mig-d", [NewEvent("Odd", {}, [])], idempotency_key="M3")
    _append("brk8/mig-e", [NewEvent("Odd", {"table": "T2"}, [])])
    projections.catch_up("audit")
    rows = _rows()
    assert rows[: len(before)] == before and [row[2] for row in rows[len(before) :]] == ["T2", "T2"]
    assert verify_chain().ok


# --- prison bets ------------------------------------------------------------------------------------


@pytest.fixture
def staff(django_user_model):
    for name, role in {"pit1": "pit_boss", "super1": "cage_supervisor"}.items():
        grant(django_user_model.objects.create_user(username=name, password="x"), role)


@pytest.fixture
def french(cage):
    def open_with(**rules):
        rules = {"zero_rule": "en_prison", **rules}
        table_open(code="F1", game="english_roulette", opener_cents=1_000_000, actor=ACTOR, rules=rules)

    return open_with


def _spin(number, bets=(), *, void=False):
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
def test_probe_french_roulette_double_prison_flows(french, rule, numbers, levels):
    """Zero after zero under each double_prison, then numbers: no IntegrityError, the levels
    as RULES.md says, the constraint and the prison account hold after each spin."""
    french(double_prison=rule)
    p = make_patron(10_000)
    _spin(numbers[0], [(p, "pair", 1_000), (p, "impair", 2_000)])
    for number in numbers[1:]:
        _spin(number)
        _consistent()
    assert _levels() == levels


@pytest.mark.parametrize("rule", ["half_returned", "returned"])
def test_probe_a_table_closes_with_prisoners_at_several_levels(french, rule):
    """A prisoner at level 2 and a new one at level 1 when the table closes: both released by
    prison_on_close, no IntegrityError, nothing left in prison."""
    french(double_prison="deeper", prison_on_close=rule)
    p = make_patron(10_000)
    _spin(0, [(p, "rouge", 1_000)])
    _spin(0, [(p, "noir", 1_500)])
    assert _levels() == [(1_000, 2), (1_500, 1)]
    table_close(code="F1", actor=ACTOR)
    assert _levels() == [] and set(Bet.objects.values_list("state", "prison_level")) == {("released", 0)}
    _consistent()


def test_probe_a_void_coup_leaves_the_prisoners_in_prison(french):
    """Voiding a coup with new bets while an earlier coup's stake is in prison: the new bets are
    returned (level 0), the prisoner stays (level 1) and the next spin decides it."""
    french()
    p = make_patron(10_000)
    _spin(0, [(p, "manque", 1_000)])
    _spin(None, [(p, "passe", 1_700)], void=True)
    assert _levels() == [(1_000, 1)]
    assert Bet.objects.get(stake_cents=1_700).state == "returned"
    _consistent()
    _spin(5)  # manque wins: released
    assert _levels() == []
    _consistent()


def test_probe_a_coup_with_a_stake_in_prison_cannot_be_reversed(french, staff):
    """round_reverse of the coup whose stake is in prison: 409 StateConflict, nothing written."""
    french()
    p = make_patron(10_000)
    coup = _spin(0, [(p, "pair", 1_000)])
    head = store.head()
    with pytest.raises(StateConflict, match="sent stakes to prison"):
        round_reverse(round_id=coup, reason="wrong number", approver="super1", actor="pit1")
    assert store.head() == head


# Was a FAULT (fixed in games/services/corrections.py, PRISON_EVENTS): the reversal put the stake
# back in prison with no bet there; a coup that moved stakes in or out of prison is now refused.
def test_reversing_the_coup_that_released_a_prisoner_keeps_the_prison_account_honest(french, staff):
    """The second coup released the first coup's prisoner (prison -10, patron +10 in the second
    coup's stream). Reversing the second coup turns those postings round: the prison account
    holds 10 EUR again, but no bet is in prison (the bet stays ``released``): the table's
    prison balance no longer matches its prisoners, and nothing will ever resolve it."""
    french()
    p = make_patron(10_000)
    _spin(0, [(p, "pair", 1_000)])
    second = _spin(2)
    assert Bet.objects.get().state == "released"
    head = store.head()
    with pytest.raises(StateConflict, match="decided prison bets: it cannot be reversed") as refused:
        round_reverse(round_id=second, reason="wrong number", approver="super1", actor="pit1")
    assert refused.value.field == "round" and store.head() == head
    _consistent()


# Was a FAULT (fixed as above): the reversal paid the stake twice, the prison account at -10 EUR.
def test_reversing_the_imprisoning_coup_after_its_prisoner_was_released(french, staff):
    """The first coup put 10 EUR in prison, the second released it to the patron. Reversing the
    first coup takes the stake out of the prison again (prison -10) and gives it back to the
    patron: the patron is paid the stake twice and the prison account goes negative."""
    french()
    p = make_patron(10_000)
    first = _spin(0, [(p, "pair", 1_000)])
    _spin(2)
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
    client.force_authenticate(staff_user("brk8-floor", "pit_boss", "cashier"))
    return client


def _tq_open(api, **rules):
    body = {"game": "trente_quarante", "opener_cents": 5_000_000, "rules": rules}
    assert api.post("/api/tables/T1/open", body, format="json").status_code == 201
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
def test_probe_trente_quarante_un_apres_flows_and_close(cage, rule, coups, levels):
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
    response = api.post("/api/tables/T1/close", {}, format="json")
    assert response.status_code == 200, response.content[:300]
    assert _levels() == []
    _consistent("T1")


def test_probe_new_bets_go_to_prison_beside_old_prisoners_at_trente_quarante(cage):
    """An après with a prisoner already at level 1 (deeper) and a new free bet: the old one goes
    to level 2 and the new one enters at level 1, in one coup."""
    api = _tq_api()
    _tq_open(api, double_prison="deeper")
    p = make_patron(10_000)
    _tq_coup(api, [(p, "rouge", 1_000)], APRES)
    _tq_coup(api, [(p, "noir", 600)], APRES)
    assert _levels() == [(600, 1), (1_000, 2)]
    _consistent("T1")


# Was a FAULT (fixed in games/services/table_rules.py, PRISON_OPTIONS): leaving en_prison (or
# deeper) with bets in prison made every later spin of the table fail (400 prison_level).
@pytest.mark.parametrize(
    "opened, changed",
    [({}, {"zero_rule": "la_partage"}), ({"double_prison": "deeper"}, {"double_prison": "stay"})],
)
def test_a_rules_change_with_prisoners_does_not_wedge_the_table(french, staff, opened, changed):
    """A prisoner (level 2 under deeper), then the pit boss changes the prison rules between
    coups: either the change is refused while bets are in prison, or the next spin settles."""
    from games.rules.errors import RuleError
    from games.services.table_rules import table_rules_change

    french(**opened)
    p = make_patron(10_000)
    _spin(0, [(p, "pair", 1_000)])
    if opened:
        _spin(0)
    with pytest.raises(StateConflict, match="bets are in prison at F1") as refused:
        table_rules_change(code="F1", rules=changed, actor="pit1")
    assert refused.value.field == "rules"
    assert table_rules_change(code="F1", rules={"max_bet_cents": 50_000}, actor="pit1")["changed"] == [
        "max_bet_cents"
    ]  # the limits may still change
    try:
        _spin(2)
        if opened:
            _spin(2)  # deeper: level 2 -> 1 -> released
    except RuleError as exc:
        pytest.fail(f"the spin after the refused change is refused: {exc}")
    assert not Bet.objects.in_prison().exists()
    assert table_rules_change(code="F1", rules=changed, actor="pit1")["changed"] == sorted(changed)
    _consistent()


def test_probe_games_migrates_back_and_forth_over_prisoners(committed_db, cage):
    """games back to 0010 (the state-conditioned index, no check, fillfactor 100) and forward
    with imprisoned, released and lost bets in the table: the check constraint validates them,
    the in-prison index and fillfactor come back, a spin then resolves the prisoners."""
    table_open(
        code="F1", game="english_roulette", opener_cents=1_000_000, actor=ACTOR, rules={"zero_rule": "en_prison"}
    )
    p = make_patron(10_000)
    _spin(0, [(p, "pair", 1_000), (p, "impair", 2_000)])
    _spin(0, [(p, "rouge", 1_500)])
    _spin(3)  # 3, red and odd: every prisoner decided
    _spin(0, [(p, "noir", 1_200)])
    before = sorted(Bet.objects.values_list("stake_cents", "state", "prison_level"))
    try:
        call_command("migrate", "games", "0010_bet_refusal_idempotency_key", verbosity=0)
        names = _constraints("games_bet")
        assert "games_bet_imprisoned" in names and "games_bet_prison_level_iff_imprisoned" not in names
    finally:
        call_command("migrate", "games", verbosity=0)
    names = _constraints("games_bet")
    assert {"games_bet_in_prison", "games_bet_prison_level_iff_imprisoned"} <= names
    assert "games_bet_imprisoned" not in names
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = 'games_bet'")
        assert cursor.fetchone()[0] == ["fillfactor=50"]
    assert sorted(Bet.objects.values_list("stake_cents", "state", "prison_level")) == before
    assert _levels() == [(1_200, 1)]
    _spin(4)  # black: noir released
    assert _levels() == []
    _consistent()


def test_probe_the_models_and_the_migrations_agree():
    """No migration is missing for ledger and games (Event's constraints, AuditEntry, Bet)."""
    call_command("makemigrations", "ledger", "games", "--check", "--dry-run", verbosity=0)
