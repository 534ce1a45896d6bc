"""Shared fixtures: a seeded casino (cage, table R1, patrons with chips), API clients,
and ``committed_db`` for tests whose point is real commits (concurrency, workers)."""

import itertools
import os
from pathlib import Path

import pytest
from django.db import connection
from rest_framework.test import APIClient

from cashier.services.cage import cage_open, chips_purchase
from cashier.services.cage_shifts import cage_shift_open
from games.services.bets import bet_place
from games.services.colour_chips import colour_chips_buy
from games.services.rounds import round_close_bets, round_open, round_record_result
from games.services.tables import table_open
from ledger import projections
from patrons.services.patrons import patron_register
from staff.roles import Role

ACTOR = "tester"


# What some tests share beyond their own test database: the cluster's database roles (created
# and altered by deploy/postgres_roles.sql, cluster-wide) and the broker's queues. Spread over
# pytest-xdist's workers (scripts/test.sh), such tests run on one worker of their group, one
# after the other (``--dist loadgroup``); the rest go wherever a worker is free.
def _uses_roles_database(module) -> bool:
    # Whatever the module took from tests/integration/roles_database.py, at its top: a test that
    # imports it inside its body carries the ``database_roles`` marker instead.
    return module is not None and any(
        getattr(value, "__module__", None) == "tests.integration.roles_database" for value in vars(module).values()
    )


def _shared_resource(item) -> str | None:
    if item.get_closest_marker("database_roles") is not None or _uses_roles_database(getattr(item, "module", None)):
        return "database-roles"
    if item.get_closest_marker("broker") is not None:
        return "broker"
    return None


# The HTTP layer's own tests (tests/api) call the same services and selectors as the pages: on
# the second backend, the pages of each workplace are read once more through these modules, and
# the rest of tests/api (the API's contract, its refusals, raw-SQL tampering, which
# PostgreSQL's pass covers) runs on the first backend only.
SECOND_PASS_PAGES = {
    "test_dashboard.py",
    "test_cage_workstation.py",
    "test_cashier_windows.py",
    "test_marker_and_front_money_pages.py",
    "test_audit_workstation.py",
    "test_auditor_day_pages.py",
    "test_count_room_page.py",
    "test_compliance_workstation.py",
    "test_pit_boss_forms.py",
    "test_table_page_reads.py",
    "test_printable_reports.py",
    "test_foreign_exchange_pages.py",
    "test_tronc_share_out_page.py",
}


def _second_pass_runs(item) -> bool:
    # pytest-django lets a test reach the database only through its marker or its fixtures; a
    # test marked ``first_backend_only`` proves nothing of the backend the others do not.
    if item.get_closest_marker("first_backend_only") is not None:
        return False
    path = Path(str(item.fspath))
    if path.parent.name == "api" and path.name not in SECOND_PASS_PAGES:
        return False
    return item.get_closest_marker("django_db") is not None or "django_db_setup" in getattr(item, "fixturenames", ())


def pytest_collection_modifyitems(config, items):
    for item in items:
        group = _shared_resource(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
    # The second backend's pass (scripts/test.sh): a test that never reaches the database
    # proves the same on both, so it runs once, on the first.
    if os.environ.get("CASINO_TESTS_DATABASE_ONLY") == "1":
        kept = [item for item in items if _second_pass_runs(item)]
        if len(kept) < len(items):
            config.hook.pytest_deselected(items=[item for item in items if not _second_pass_runs(item)])
            items[:] = kept


@pytest.fixture(scope="session")
def _ledger_key_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("ledger-keys")


@pytest.fixture(autouse=True)
def _ledger_anchor_files(settings, tmp_path_factory, _ledger_key_dir):
    """Checkpoints (a fresh directory a test) and the development signing key (one a run) go to
    temporary directories, never the checkout's var/; no checkpoint after N events or N seconds
    unless a test asks (LEDGER_CHECKPOINT_EVENTS, LEDGER_CHECKPOINT_INTERVAL_SECONDS)."""
    settings.LEDGER_CHECKPOINT_DIR = str(tmp_path_factory.mktemp("checkpoints"))
    settings.LEDGER_DEVELOPMENT_KEY_FILE = _ledger_key_dir / "ledger-signing-key.dev.pem"
    settings.LEDGER_CHECKPOINT_EVENTS = 0
    settings.LEDGER_CHECKPOINT_INTERVAL_SECONDS = 0


@pytest.fixture(autouse=True)
def _unrecorded_test_accounts_log_in(settings):
    """Tests make their people with ``create_user`` (``staff_user``), no identity event: the
    tests of the rule (an account no event created may not log in) switch it back on."""
    settings.STAFF_LOGIN_REQUIRES_RECORDED_ACCOUNT = False


@pytest.fixture(autouse=True)
def _pit_bosses_set_tables_up(settings):
    """Tests open their tables from a pit boss's login, new codes included; the tests of the
    rule (a new table is set up by an administrator) switch it back on."""
    settings.TABLE_SET_UP_NEEDS_ADMINISTRATOR = False


@pytest.fixture(autouse=True)
def _disowned_events_forgotten():
    """Each test's database is a new ledger: the positions a scan found forged in another
    test's (``ledger.seal_scan``, kept per process) mean nothing in it."""
    from ledger import seal_scan

    seal_scan.forget()
    yield
    seal_scan.forget()


@pytest.fixture(autouse=True)
def _database_outage_forgotten():
    """The outage a test made (``ledger.outage``, kept per process) is over for the next test."""
    from ledger import outage

    outage.forget()
    yield
    outage.forget()


@pytest.fixture
def _replication_role_reset(django_db_blocker):
    yield
    if connection.vendor == "postgresql":
        with django_db_blocker.unblock(), connection.cursor() as cursor:
            cursor.execute("RESET session_replication_role")


@pytest.fixture
def committed_db(_replication_role_reset, transactional_db):
    """Real commits on PostgreSQL. The ledger refuses TRUNCATE, which the test framework's
    flush uses between such tests; ``session_replication_role = replica`` (superuser only)
    lets that one flush through, and is reset right after."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: real commits (concurrent transactions, workers or a live server)")
    yield
    with connection.cursor() as cursor:
        cursor.execute("SET session_replication_role = replica")


# The cashier whose shift the ``cage`` fixture opens (a name no test gives another user).
SHIFT_CASHIER = "shift-cashier"


@pytest.fixture
def cage_float():
    """The cage opened with its float (100,000 EUR of cash and of chips), no cashier shift open:
    chip sales, redemptions and slip issues are refused (409) until one opens."""
    return cage_open(cash_cents=10_000_000, chips_cents=10_000_000, actor=ACTOR)


def open_cage_shift(actor: str = SHIFT_CASHIER) -> dict:
    """Open ``actor``'s window with the whole main bank as its imprest (counted as the book: no
    variance); creates ``actor`` as a cashier when no such user exists."""
    from django.contrib.auth import get_user_model

    from cashier.services.cage_shifts import main_bank
    from core.denominations import cash_denominations, chip_denominations, decompose
    from staff.services import staff_account_create

    if not get_user_model().objects.filter(username=actor).exists():
        # Through the staff service, as the console would: the account's creation is in the
        # ledger, so `ledger verify` (which checks every account against its events) passes.
        staff_account_create(username=actor, password="x", roles=["cashier"], actor="manage.py")
    bank = main_bank()
    return cage_shift_open(
        cash=decompose(bank["cash_cents"], cash_denominations()),
        chips=decompose(bank["chips_cents"], chip_denominations()),
        actor=actor,
    )


def drawer_count(window: str) -> dict:
    """A window's drawer counted as its book says: ``{"cash", "chips"}`` by denomination."""
    from cashier.services.cage_shifts import window_book
    from core.denominations import cash_denominations, chip_denominations, decompose

    book = window_book(window)
    return {
        "cash": decompose(book["cash_cents"], cash_denominations()),
        "chips": decompose(book["chips_cents"], chip_denominations()),
    }


def hand_cage_to(cashier: str) -> dict:
    """The open window closed by its cashier (its drawer counted as the book) and handed over
    to ``cashier``, who signs the handover himself (``approvals``) and opens his own with the
    whole main bank: only a window's cashier sells, redeems and issues in it."""
    from approvals.services import approval_confirm, approval_request
    from cashier.services.cage_shifts import open_windows

    for actor, opened in open_windows().items():
        payload = drawer_count(opened.data["window"]) | {"cashier": actor, "handover_to": cashier}
        asked = approval_request(kind="cage_shift_close", payload=payload, actor=actor)
        approval_confirm(approval=asked["approval"]["id"], actor=cashier)
    return open_cage_shift(cashier)


@pytest.fixture
def cage(cage_float):
    """The cage with its float and a cashier shift open (``SHIFT_CASHIER``)."""
    open_cage_shift()
    return cage_float


@pytest.fixture
def table(cage):
    """English roulette table R1, la partage, default limits, opener 50,000 EUR."""
    return table_open(code="R1", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={})


def open_by_total(
    code: str,
    game: str = "english_roulette",
    opener_cents: int = 5_000_000,
    rules: dict | None = None,
    actor: str = "dealer1",
    **signatures,
) -> dict:
    """Table ``code`` opened for a test's set-up through the service, with the opener as a plain
    total in cents (no endpoint takes one: the API opens only a counted opener). ``actor``: a pit
    boss's username (``dealer1``, the ``api`` client's user, by default); ``signatures``:
    ``approver`` / ``edge_approver`` where the opener or the rule set needs them. Returns the
    service's answer; raises what ``games.services.tables.table_open`` raises."""
    return table_open(code=code, game=game, opener_cents=opener_cents, rules=rules, actor=actor, **signatures)


# One identity document belongs to one patron: each patron made here has his own, numbered
# from 1 in each test (``_patron_documents_from_one``), so a test may name the first one.
_document_numbers = itertools.count(1)


@pytest.fixture(autouse=True)
def _patron_documents_from_one():
    global _document_numbers
    _document_numbers = itertools.count(1)


def make_patron(chips_cents: int = 0) -> str:
    """An identified patron ("Test Patron", a document of his own: ID-TEST-000001 for a test's
    first) holding ``chips_cents``."""
    document = f"ID-TEST-{next(_document_numbers):06d}"
    code = patron_register(kind="identified", name="Test Patron", document=document, actor=ACTOR)["patron"]
    if chips_cents:
        chips_purchase(patron=code, amount_cents=chips_cents, actor=ACTOR)
    return code


def rated_by_hand(actor: str, table: str = "R1") -> str:
    """An identified patron rated by hand by ``actor`` at English roulette ``table``: 60 minutes
    at the game's 35 decisions an hour, 37.00 EUR on average: 35 bets, 1,295.00 EUR staked, a
    theoretical win of 3,499.9965 cents (the edge recorded to six places, 0.027027); projections
    caught up."""
    from datetime import timedelta

    from django.utils import timezone

    from games.services.ratings import patron_rating_record

    patron = make_patron()
    patron_rating_record(
        table=table,
        patron=patron,
        time_in=timezone.now() - timedelta(minutes=70),
        minutes=60,
        average_bet_cents=3_700,
        buy_in_cents=50_000,
        actor=actor,
    )
    projections.catch_up_all()
    return patron


PIN = "2468"  # the PIN ``set_self_limit`` gives a patron


def set_self_limit(patron: str, max_bet_cents: int, **kwargs) -> dict:
    """``self_limit_set`` for ``patron`` (one of ``make_patron``'s), with his PIN set at the cage
    first (his document shown) when he has none."""
    from patrons.models import Patron, PatronPin
    from patrons.services.self_limit import patron_pin_set, self_limit_set

    if not PatronPin.objects.filter(pk=patron).exists():
        document = Patron.objects.get(code=patron).document
        patron_pin_set(patron=patron, pin=PIN, document=document, actor=ACTOR)
    return self_limit_set(patron=patron, max_bet_cents=max_bet_cents, pin=PIN, actor=ACTOR, **kwargs)


@pytest.fixture
def patron(cage) -> str:
    """A patron holding 1,000 EUR of value chips."""
    return make_patron(100_000)


@pytest.fixture
def colour_patron(table) -> str:
    """A patron with 100 red chips of 2 EUR at R1 (and 800 EUR of value chips left)."""
    code = make_patron(100_000)
    colour_chips_buy(table="R1", patron=code, chips=100, unit_value_cents=200, colour="red", actor=ACTOR)
    return code


@pytest.fixture
def played(table):
    """One coup at R1: 20 EUR on noir (value chips), ball on 2 (black): the patron wins 20;
    projections caught up. Returns ``(patron code, coup id)``."""
    code = make_patron(100_000)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet_place(
        round_id=coup, patron=code, stake_cents=2_000, bet={"type": "chance_simple", "chance": "noir"}, actor=ACTOR
    )
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=2, actor=ACTOR)
    projections.catch_up_all()
    return code, coup


# The people of the cage accounting tests: pit bosses who count openers and ask for slips, a
# dealer who confirms, the issuing cashier, the cage supervisor, the runner, the drop team's two
# who remove the drop boxes and the two counters who count them (never the same people).
CAGE_STAFF = {
    "pit1": Role.PIT_BOSS,
    "pit2": Role.PIT_BOSS,
    "dealer1": Role.DEALER,
    "cash1": Role.CASHIER,
    "super1": Role.CAGE_SUPERVISOR,
    "run1": Role.RUNNER,
    "drop1": Role.DROP_TEAM,
    "drop2": Role.DROP_TEAM,
    "count1": Role.COUNT_TEAM,
    "count2": Role.COUNT_TEAM,
}
OPENER = {"100000": 40, "10000": 100}  # 50,000 EUR: chips by denomination in cents


def open_counted_table(clients: dict, code: str = "T1"):
    """Open English roulette ``code`` through the API with ``OPENER`` counted: asked by ``pit1``
    (pit boss ``pit1``, dealer ``dealer1``) and confirmed by ``dealer1``; ``clients`` as
    ``staff_clients`` makes them. Returns the confirming response."""
    body = {"game": "english_roulette", "opener": OPENER, "dealer": "dealer1", "pit_boss": "pit1", "rules": {}}
    return approve(clients["pit1"].post(f"/api/tables/{code}/opener", body, format="json"), clients["dealer1"])


# The dealer who confirms the counted openers the ``api`` client (a pit boss) asks for.
TABLE_DEALER = "croupier"


def chips_for(cents: int) -> dict:
    """A count of ``cents`` in chips, largest denomination first: ``{"<cents>": pieces}``."""
    from core.denominations import chip_denominations

    count = {}
    for denomination in sorted(chip_denominations(), reverse=True):
        if cents >= denomination:
            count[str(denomination)], cents = divmod(cents, denomination)
    return count


def opener_body(
    game: str = "english_roulette",
    opener_cents: int = 5_000_000,
    rules: dict | None = None,
    dealer: str = TABLE_DEALER,
    pit_boss: str = "dealer1",
) -> dict:
    """The body of ``POST /api/tables/<code>/opener``: ``opener_cents`` counted in chips
    (``chips_for``); by default the ``api`` client's user names himself as the pit boss."""
    body = {"game": game, "opener": chips_for(opener_cents), "dealer": dealer, "pit_boss": pit_boss}
    return body | ({} if rules is None else {"rules": rules})


def open_by_count(maker: APIClient, code: str, *signers: APIClient, **body):
    """Ask through the API, as ``maker``, to open ``code`` with the counted opener of
    ``opener_body(**body)``, and confirm it by each of ``signers`` (each from his own
    session: the dealer, then any other named signer); the last answer."""
    return approve(maker.post(f"/api/tables/{code}/opener", opener_body(**body), format="json"), *signers)


@pytest.fixture
def croupier() -> APIClient:
    """An API client authenticated as ``TABLE_DEALER``, a dealer: he confirms the openers the
    ``api`` client asks for."""
    return client_as(staff_user(TABLE_DEALER, Role.DEALER.value))


# The roles the existing whole-flow API tests need: a pit boss runs every table
# endpoint without a dealer assignment (opening tables, coups, voids), a cashier the cage and
# patron endpoints. One user holds both only because these tests drive a whole flow from one
# client; the per-role allow/deny lives in tests/api/test_permission_matrix.py.
API_TEST_ROLES = ("pit_boss", "cashier")


def staff_user(username: str, *roles: str):
    """A user holding ``roles`` (staff.roles.Role values), e.g. ``staff_user("dealer1", "dealer")``."""
    from django.contrib.auth import get_user_model

    from staff.roles import grant

    user = get_user_model().objects.create_user(username=username, password="x")
    grant(user, *roles)
    return user


@pytest.fixture
def pit_boss(client, django_user_model):
    """Django's test ``client`` logged in (session cookie) as ``boss``, a pit boss: the
    dashboard's pages."""
    from staff.roles import grant

    user = django_user_model.objects.create_user(username="boss", password="pw")
    grant(user, Role.PIT_BOSS)
    client.force_login(user)
    return client


def client_as(user) -> APIClient:
    """An API client authenticated as ``user`` (no password checked)."""
    client = APIClient()
    client.force_authenticate(user)
    return client


def staff_clients(staff: dict) -> dict:
    """An authenticated API client for each ``{username: role}`` of ``staff`` (users made by
    ``staff_user``), by username."""
    return {name: client_as(staff_user(name, role)) for name, role in staff.items()}


@pytest.fixture
def api(request):
    """An API client authenticated (no password hashing) as ``dealer1`` holding ``API_TEST_ROLES``.
    With the ``cage`` fixture, the cashier shift is handed over to ``dealer1``: only a shift's
    own cashier sells, redeems and issues in it."""
    if "cage" in request.fixturenames:
        request.getfixturevalue("cage")
    client = client_as(staff_user("dealer1", *API_TEST_ROLES))
    if "cage" in request.fixturenames:
        hand_cage_to("dealer1")
    return client


@pytest.fixture(autouse=True)
def _celery_may_wait_for_results():
    """Celery keeps one process-wide flag, "a join would block", that makes every later
    ``result.get()`` raise; a test that waits for an eager task's result must not depend on
    which test ran before it. An eager ``delay()`` sets it while its task runs and puts back what
    it found, so two threads doing so at once left it set: the eager catch-up now runs with
    ``apply()`` (ledger/commands.py), which leaves it alone; this reset stays as a guard."""
    from celery.result import _set_task_join_will_block

    _set_task_join_will_block(False)


@pytest.fixture
def eager_tasks():
    """Celery tasks run in this process, one after the other, even where the run has a broker
    (CI points Celery at RabbitMQ with no worker on the default queue): for a test that waits
    for a task's outcome. The run's own setting is restored after."""
    from casino.celery import app

    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = eager


@pytest.fixture(autouse=True)
def _no_rate_limits(settings):
    """The API's rate limits are off: a test drives hundreds of requests as one user
    in seconds. The throttling tests set them (tests/api/test_operations_throttling.py)."""
    settings.API_THROTTLE_RATES = dict.fromkeys(("device", "user", "anon"))


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings):
    """Tests create many users with passwords: PBKDF2 costs ~0.25 s of CPU each, which made a
    file of 150 small tests take minutes. Production keeps Django's default hashers."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def remove_drop_box(clients: dict, table: str, day: str, removers=("drop1", "drop2"), extra: dict | None = None):
    """The drop box of ``table`` for ``day`` removed through the API by two people: the first of
    ``removers`` asks naming both, the second confirms from his own session; the last answer.
    By default the drop team's ``drop1`` and ``drop2``: the counters (``count1``, ``count2``)
    may not count a box they removed."""
    first, second = removers
    body = {"gaming_day": day, "removers": [first, second], **(extra or {})}
    return approve(clients[first].post(f"/api/tables/{table}/drop-removal", body, format="json"), clients[second])


def approve(response, *signers):
    """Confirm the approval a maker's request is waiting for (HTTP 202) by each of ``signers``
    (API clients, each authenticated as one signer), in order; return the last answer (the
    act's own once the last signature is given). Any other answer is returned as it is."""
    if response.status_code != 202:
        return response
    approval = response.json()["approval"]["id"]
    for client in signers:
        response = client.post(f"/api/approvals/{approval}/confirm", {}, format="json")
    return response


def cosigned(response, signer: str = "cosigner"):
    """A pit boss's request that waits for another supervisor (HTTP 202: a coup voided after its
    deal) confirmed by pit boss ``signer`` from his own login (made here unless he exists);
    the last answer, or ``response`` itself when nothing waited."""
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.filter(username=signer).first() or staff_user(signer, Role.PIT_BOSS)
    return approve(response, client_as(user))
