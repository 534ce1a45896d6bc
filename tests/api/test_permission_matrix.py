"""The access matrix: every endpoint × every role → allowed or denied (403), never a 500.

The endpoints are enumerated from the URL resolver: an endpoint missing from ``MATRIX`` fails
``test_every_endpoint_is_in_the_matrix`` (add its row: who may read, who may write). The
expected sets below are written out by hand from the roles' definitions — they are not read
from the views' own permission classes, so a view declaring the wrong roles fails here.

Subjects: one user per role, plus
- ``dealer_elsewhere`` (a dealer assigned to another table): denied on table-scoped endpoints;
- ``device`` (a token bound to the endpoint's table) and ``device_elsewhere`` (another table):
  a device acts only where the dealer role is allowed, only on table-scoped endpoints, only at
  its own table;
- ``anonymous``: 401 on the API (302 to the login page on the dashboard).

"Allowed" means the request got past the access check: not 401, and not 403 from the
permission layer (a domain rule may still refuse it — bad input 400, 404, a segregation-of-
duties 403 ``forbidden``, a state 409 — the bodies sent are empty). Each call runs in a
savepoint that is rolled back, so no call changes what the next one sees.
"""

import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from rest_framework.test import APIClient
from rest_framework.views import APIView

from games.services.bets import bet_place
from games.services.rounds import round_open
from games.services.shoes import shoe_start
from games.services.tables import table_open
from staff.services import dealer_assign, device_token_issue
from tests.conftest import ACTOR, make_patron, staff_user

# Who may reach which endpoint is decided by the permission layer before any query: the second
# backend's pass (scripts/test.sh) would prove it again, at a minute and a half of its time.
pytestmark = [pytest.mark.django_db, pytest.mark.first_backend_only]

EVERY = frozenset(
    {"dealer", "pit_boss", "cashier", "cage_supervisor", "count_team", "runner", "auditor", "admin", "compliance"}
)
FLOOR = frozenset({"dealer", "pit_boss"})
PIT = frozenset({"pit_boss"})
CAGE = frozenset({"cashier", "cage_supervisor"})
PATRON_DESK = frozenset({"cashier", "cage_supervisor", "pit_boss"})
PATRON_READ = frozenset({"cashier", "cage_supervisor", "pit_boss", "auditor", "admin"})
LEDGER_READ = EVERY - {"dealer", "runner"}
# The accounting reports: whoever reads the ledger they come from (the compliance officer too).
ACCOUNTING_READ = frozenset({"admin", "auditor", "cage_supervisor", "cashier", "count_team", "pit_boss", "compliance"})
STAFF_READ = frozenset({"pit_boss", "admin", "auditor"})
STAFF_WRITE = frozenset({"pit_boss", "admin"})
EXPORTS = frozenset({"auditor", "admin"})
DASHBOARD = frozenset({"pit_boss"})
SIGNERS = frozenset({"pit_boss", "dealer", "cage_supervisor"})  # the dashboard's approvals page
AUDIT = frozenset({"auditor"})
COUNT_ROOM = frozenset({"count_team", "pit_boss", "drop_team", "cage_supervisor"})  # the drop team is no subject here
# The exception log: the auditor, the admin, the cage supervisor (AML desk), the pit boss and the
# compliance officer (its AML flags are his to follow up).
EXCEPTION_LOG = frozenset({"auditor", "admin", "cage_supervisor", "pit_boss", "compliance"})
# The suspicion cases: the compliance officer alone (tipping-off: nobody who deals with the patron).
COMPLIANCE = frozenset({"compliance"})
COMP_GIVERS = frozenset({"pit_boss", "cage_supervisor"})  # also who enters an outage's paper forms
OUTAGE_DECLARERS = frozenset({"pit_boss", "cage_supervisor", "admin"})
REPORT_SIGNERS = frozenset({"cashier", "cage_supervisor", "pit_boss", "auditor"})
PROTECTION_WORK = frozenset({"pit_boss", "admin"})  # game protection's investigations
PROTECTION_READ = PROTECTION_WORK | {"auditor"}
PUBLIC = "public"  # no login needed

# url name → ({method: roles allowed}, table scope or None). Table scope: how the URL names a table.
MATRIX: dict[str, tuple[dict, str | None]] = {
    # cage and patrons
    "patron-list": ({"GET": PATRON_READ}, None),
    "patron-register": ({"POST": PATRON_DESK}, None),
    "patron-detail": ({"GET": PATRON_READ}, None),
    "patron-self-limit": ({"GET": PATRON_READ, "POST": PATRON_DESK}, None),
    "patron-identity": ({"POST": CAGE}, None),  # AML identity, recorded at the cage
    "patron-pin": ({"POST": CAGE}, None),  # the self-limit PIN, set at the cage
    "patron-comps": ({"GET": PATRON_READ, "POST": COMP_GIVERS}, None),
    "patron-comp-reverse": ({"POST": COMP_GIVERS}, None),
    "patron-pin-reset": ({"POST": CAGE}, None),  # its reset, asked at the cage (a supervisor confirms)
    "cage-open": ({"POST": CAGE}, None),
    "chips-purchase": ({"POST": CAGE}, None),
    "chips-redeem": ({"POST": CAGE}, None),
    "exchange-rate-set": ({"POST": frozenset({"cage_supervisor"})}, None),
    "foreign-exchange": ({"POST": CAGE}, None),
    # tables
    "table-list": ({"GET": EVERY}, None),
    "table-detail": ({"GET": EVERY}, "table"),
    "table-rules-change": ({"POST": PIT}, None),
    "table-buy-in": ({"POST": FLOOR}, "table"),
    "colour-chips-buy": ({"POST": FLOOR}, "table"),
    "change-inverse": ({"POST": FLOOR}, "table"),
    "round-open": ({"POST": FLOOR}, "table"),
    "table-rounds": ({"GET": EVERY}, "table"),
    "shoe-start": ({"POST": FLOOR}, "table"),
    "shoe-detail": ({"GET": EVERY}, "shoe"),
    "shoe-close": ({"POST": FLOOR}, "shoe"),
    "shoe-history": ({"GET": EVERY}, "shoe"),
    # coups
    "round-detail": ({"GET": EVERY}, "round"),
    "bet-place": ({"POST": FLOOR}, "round"),
    "bet-batch-place": ({"POST": FLOOR}, "round"),
    "round-close-bets": ({"POST": FLOOR}, "round"),
    "round-result": ({"POST": FLOOR}, "round"),
    "round-void": ({"POST": PIT}, None),
    "round-reversal": ({"POST": PIT}, None),  # a storno of a settled coup
    "blackjack-bet": ({"POST": FLOOR}, "round"),
    "blackjack-deal": ({"POST": FLOOR}, "round"),
    "blackjack-card": ({"POST": FLOOR}, "round"),
    "blackjack-decide": ({"POST": FLOOR}, "round"),
    "caribbean-ante": ({"POST": FLOOR}, "round"),
    "caribbean-decide": ({"POST": FLOOR}, "round"),
    "caribbean-burn-card": ({"POST": FLOOR}, "round"),  # a card exposed by mistake (sheet 001)
    "caribbean-deck-change": ({"POST": FLOOR}, "round"),  # at the patrons' request (sheet 001)
    "baccarat-bet": ({"POST": FLOOR}, "round"),
    "tq-bet": ({"POST": FLOOR}, "round"),
    "classic-stud-sit": ({"POST": FLOOR}, "round"),
    "classic-stud-act": ({"POST": FLOOR}, "round"),
    "classic-stud-hand": ({"GET": EVERY}, "round"),
    "bet-withdraw": ({"POST": FLOOR}, "bet"),
    "bet-move": ({"POST": FLOOR}, "bet"),
    # cage and table accounting
    "table-open-counted": ({"POST": PIT}, None),
    "table-close-counted": ({"POST": PIT}, None),
    "slip-request": ({"POST": PIT}, None),
    "slip-list": ({"GET": ACCOUNTING_READ | {"runner"}}, None),
    "slip-issue": ({"POST": CAGE}, None),
    "slip-accept": ({"POST": FLOOR | CAGE}, "slip"),
    "slip-void": ({"POST": CAGE | PIT}, None),
    "slip-reverse": ({"POST": CAGE | PIT}, None),
    "drop-removal": ({"POST": PIT | {"count_team"}}, None),
    "drop-count": ({"POST": frozenset({"count_team"})}, None),
    "drop-count-reversal": ({"POST": PIT | {"count_team", "cage_supervisor"}}, None),
    "cage-shift-open": ({"POST": CAGE}, None),
    "cage-shift-close": ({"POST": CAGE}, None),
    "cage-window-transfer": ({"POST": CAGE}, None),
    "gaming-day-close": ({"POST": frozenset({"pit_boss", "cage_supervisor", "admin"})}, None),
    # approvals: any member of staff reads them and signs where one waits for him
    # (who may sign a given approval is the service's check: 403 "forbidden" past this layer)
    "approval-list": ({"GET": EVERY}, None),
    "approval-detail": ({"GET": EVERY}, None),
    "approval-confirm": ({"POST": EVERY}, None),
    "approval-reject": ({"POST": EVERY}, None),
    **{
        f"report-{slug}{csv}": ({"GET": ACCOUNTING_READ}, None)
        for slug in ("table-games", "cage-accountability", "variances", "tronc", "unused-serials")
        for csv in ("", "-csv", "-meta", "-xlsx")  # JSON, CSV table, its metadata, XLSX
    },
    # the regulatory back office: tips
    "tips-count": ({"POST": frozenset({"count_team", "cashier", "cage_supervisor", "pit_boss"})}, None),
    "tronc-share": ({"POST": frozenset({"cage_supervisor"})}, None),
    **{
        f"report-{slug}{csv}": ({"GET": ACCOUNTING_READ}, None)
        for slug in ("tips-book", "tronc-shares", "credit-outstanding", "master-game")
        for csv in ("", "-csv")
    },
    # casino credit and front money
    "credit-line-set": ({"POST": frozenset({"cage_supervisor"})}, None),
    "marker-issue": ({"POST": CAGE | PIT}, None),
    "marker-transfer": ({"POST": CAGE}, None),
    "marker-pay": ({"POST": CAGE}, None),
    "marker-pay-at-table": ({"POST": PIT}, None),
    "marker-void": ({"POST": CAGE}, None),
    "front-money-deposit": ({"POST": CAGE}, None),
    "front-money-withdraw": ({"POST": CAGE}, None),
    "front-money-draw": ({"POST": PIT}, None),
    # drop custody
    "drop-recount": ({"POST": frozenset({"count_team"})}, None),
    "master-game-sign": ({"POST": frozenset({"count_team"})}, None),
    # ledger
    "event-list": ({"GET": LEDGER_READ}, None),
    "balance-list": ({"GET": LEDGER_READ}, None),
    "projection-status": ({"GET": LEDGER_READ}, None),
    "projection-rebuild": ({"POST": frozenset({"admin"})}, None),
    "audit-trail": ({"GET": LEDGER_READ}, None),
    "table-stats": ({"GET": LEDGER_READ}, None),
    "patron-ratings": ({"GET": LEDGER_READ}, None),
    "gaming-day-export": ({"GET": EXPORTS}, None),
    "exception-log": ({"GET": EXCEPTION_LOG}, None),
    "protection-fluctuations": ({"GET": PROTECTION_READ}, None),
    "investigations": ({"GET": PROTECTION_READ, "POST": PROTECTION_WORK}, None),
    "investigation": ({"GET": PROTECTION_READ}, None),
    "investigation-note": ({"POST": PROTECTION_WORK}, None),
    "investigation-close": ({"POST": PROTECTION_WORK}, None),
    "exception-log-csv": ({"GET": EXCEPTION_LOG}, None),
    "case-list": ({"GET": COMPLIANCE}, None),
    "case-open": ({"POST": COMPLIANCE}, None),
    "case-detail": ({"GET": COMPLIANCE}, None),
    "case-attach": ({"POST": COMPLIANCE}, None),
    "case-findings": ({"POST": COMPLIANCE}, None),
    "case-decision": ({"POST": COMPLIANCE}, None),
    "case-filing": ({"POST": COMPLIANCE}, None),
    "health": ({"GET": PUBLIC}, None),
    "health-live": ({"GET": PUBLIC}, None),
    "health-ready": ({"GET": PUBLIC}, None),
    "metrics": ({"GET": PUBLIC}, None),  # no login: by address or token (tests/api/test_operations_metrics.py)
    "schema": ({"GET": PUBLIC}, None),
    "docs": ({"GET": PUBLIC}, None),
    # staff
    "staff-assignments": ({"GET": STAFF_READ}, None),
    "staff-assign": ({"POST": STAFF_WRITE}, None),
    "staff-release": ({"POST": STAFF_WRITE}, None),
    "staff-devices": ({"GET": STAFF_READ}, None),
    "staff-device-issue": ({"POST": PIT}, None),  # never the admin: a device reaches money
    "staff-device-revoke": ({"POST": STAFF_WRITE}, None),
    "staff-user-roles": ({"POST": frozenset({"admin"})}, None),
    "staff-password-reset": ({"POST": frozenset({"admin"})}, None),
    "staff-reactivate": ({"POST": frozenset({"admin"})}, None),
    "staff-password": ({"POST": EVERY}, None),  # one's own password: any person, never a device
    "staff:password-change": ({"GET": EVERY}, None),  # the page of the same
    "staff-user-leave": ({"POST": frozenset({"admin"})}, None),
    "staff-access-review": ({"GET": EXPORTS}, None),
    "staff-access-review-csv": ({"GET": EXPORTS}, None),
    # people's login pages, the redirects of / and /api/
    "rest_framework:login": ({"GET": PUBLIC}, None),
    "rest_framework:logout": ({"POST": PUBLIC}, None),
    "dashboard:login": ({"GET": PUBLIC}, None),
    "dashboard:logout": ({"POST": PUBLIC}, None),
    "home": ({"GET": PUBLIC}, None),
    "": ({"GET": PUBLIC}, None),  # /api/ → the API docs
    # the pit boss dashboard: server-rendered, session login
    "dashboard:floor": ({"GET": DASHBOARD}, None),
    "dashboard:floor-live": ({"GET": DASHBOARD}, None),
    "dashboard:table": ({"GET": DASHBOARD}, None),
    "dashboard:table-live": ({"GET": DASHBOARD}, None),
    "dashboard:coup-audit": ({"GET": DASHBOARD}, None),
    "dashboard:patron-lookup": ({"GET": DASHBOARD}, None),
    "dashboard:patron": ({"GET": DASHBOARD}, None),
    "dashboard:outages": ({"GET": DASHBOARD}, None),
    "dashboard:outage-declare": ({"POST": DASHBOARD}, None),
    "dashboard:outage-blank-forms": ({"GET": DASHBOARD}, None),
    "dashboard:outage-end": ({"POST": DASHBOARD}, None),
    "dashboard:outage-forms": ({"GET": DASHBOARD}, None),
    "dashboard:outage-paper-coup": ({"POST": DASHBOARD}, None),
    "dashboard:outage-paper-slip": ({"POST": DASHBOARD}, None),
    "dashboard:outage-paper-buy-in": ({"POST": DASHBOARD}, None),
    "dashboard:outage-paper-marker": ({"POST": DASHBOARD}, None),
    "dashboard:outage-form-complete": ({"POST": DASHBOARD}, None),
    # The paper fallback (docs/outage.md): declared by a pit boss, a cage supervisor or an admin,
    # coups entered by a pit boss or a cage supervisor, the cage's lines by the cage.
    "outage-list": ({"GET": ACCOUNTING_READ, "POST": OUTAGE_DECLARERS}, None),
    "outage-detail": ({"GET": ACCOUNTING_READ}, None),
    "outage-end": ({"POST": OUTAGE_DECLARERS}, None),
    "outage-blank-forms": ({"GET": ACCOUNTING_READ}, None),
    "outage-forms": ({"GET": ACCOUNTING_READ}, None),
    "paper-form-complete": ({"POST": COMP_GIVERS}, None),
    "paper-coup-enter": ({"POST": COMP_GIVERS}, None),
    "paper-cage-enter": ({"POST": frozenset({"cashier", "cage_supervisor"})}, None),
    "paper-slip-enter": ({"POST": COMP_GIVERS}, None),
    "paper-buy-in-enter": ({"POST": COMP_GIVERS}, None),
    "paper-marker-enter": ({"POST": COMP_GIVERS}, None),
    "dashboard:comp-give": ({"POST": DASHBOARD}, None),
    "dashboard:comp-reverse": ({"POST": DASHBOARD}, None),
    "dashboard:cage": ({"GET": CAGE | AUDIT}, None),  # the cage's book: not open to the pit (SHIFTS.md)
    # the pit boss's forms (dashboard.shift_views) and the signers' approvals page
    "dashboard:open": ({"GET": DASHBOARD, "POST": DASHBOARD}, None),
    "dashboard:limits": ({"POST": DASHBOARD}, None),
    "dashboard:slip-request": ({"POST": DASHBOARD}, None),
    "dashboard:slip-accept": ({"POST": DASHBOARD}, None),
    "dashboard:slip-count": ({"POST": DASHBOARD}, None),
    "dashboard:slip-refuse": ({"POST": DASHBOARD}, None),
    "dashboard:close": ({"POST": DASHBOARD}, None),
    "dashboard:rating": ({"POST": DASHBOARD}, None),
    "dashboard:marker-payment": ({"POST": DASHBOARD}, None),
    "dashboard:marker-issue": ({"POST": DASHBOARD}, None),
    "dashboard:front-money-draw": ({"POST": DASHBOARD}, None),
    "dashboard:rating-start": ({"POST": DASHBOARD}, None),
    "dashboard:rating-stop": ({"POST": DASHBOARD}, None),
    "dashboard:coup-reversal": ({"POST": DASHBOARD}, None),
    "dashboard:approvals": ({"GET": SIGNERS}, None),
    # game protection: the day in standard deviations, the investigations of its alarms
    "dashboard:protection": ({"GET": PROTECTION_READ}, None),
    "dashboard:investigation": ({"GET": PROTECTION_READ}, None),
    "dashboard:investigation-open": ({"POST": PROTECTION_WORK}, None),
    "dashboard:investigation-note": ({"POST": PROTECTION_WORK}, None),
    "dashboard:investigation-close": ({"POST": PROTECTION_WORK}, None),
    "dashboard:approve": ({"POST": SIGNERS}, None),
    "dashboard:refuse": ({"POST": SIGNERS}, None),
    # the cage and audit workstations: server-rendered, session login
    "workstations:login": ({"GET": PUBLIC}, None),
    "workstations:logout": ({"POST": PUBLIC}, None),
    "workstations:cage": ({"GET": CAGE}, None),
    "workstations:cage-shift-open": ({"POST": CAGE}, None),
    "workstations:cage-shift-close": ({"POST": CAGE}, None),
    "workstations:cage-chips": ({"POST": CAGE}, None),
    "workstations:cage-foreign-exchange": ({"POST": CAGE}, None),
    "workstations:cage-exchange-rate": ({"POST": frozenset({"cage_supervisor"})}, None),
    "workstations:cage-issue": ({"POST": CAGE}, None),
    "workstations:cage-credit-receive": ({"POST": CAGE}, None),
    "workstations:cage-patron-register": ({"POST": CAGE}, None),
    "workstations:cage-patron-pin": ({"POST": CAGE}, None),
    "workstations:cage-patron-pin-reset": ({"POST": CAGE}, None),
    "workstations:cage-patron-self-limit": ({"POST": CAGE}, None),
    "workstations:cage-reverse": ({"POST": CAGE}, None),
    "workstations:cage-transfer": ({"POST": CAGE}, None),
    "workstations:cage-marker-void": ({"POST": CAGE}, None),
    "workstations:cage-marker-pay": ({"POST": CAGE}, None),
    "workstations:cage-credit-line": ({"POST": frozenset({"cage_supervisor"})}, None),
    "workstations:cage-decide": ({"POST": CAGE}, None),
    "workstations:cage-paper-line": ({"POST": CAGE}, None),
    "workstations:cage-paper-complete": ({"POST": frozenset({"cage_supervisor"})}, None),
    "workstations:cage-shift": ({"GET": CAGE}, None),
    "workstations:cage-tronc": ({"GET": CAGE}, None),
    "workstations:cage-tronc-share": ({"POST": frozenset({"cage_supervisor"})}, None),
    "workstations:audit-days": ({"GET": AUDIT}, None),
    "workstations:audit-chain-check": ({"POST": AUDIT}, None),
    "workstations:audit-day": ({"GET": AUDIT, "POST": AUDIT}, None),
    "workstations:audit-export": ({"GET": AUDIT}, None),
    "workstations:audit-register": ({"GET": AUDIT}, None),
    "workstations:audit-registers": ({"GET": AUDIT}, None),
    "workstations:audit-public-key": ({"GET": AUDIT}, None),
    "workstations:audit-verifier": ({"GET": AUDIT}, None),
    "workstations:audit-exceptions": ({"GET": AUDIT}, None),
    "workstations:audit-event": ({"GET": AUDIT}, None),
    "workstations:audit-events": ({"GET": AUDIT}, None),
    "workstations:runner": ({"GET": frozenset({"runner"})}, None),
    "workstations:runner-confirm": ({"POST": frozenset({"runner"})}, None),
    "workstations:runner-refuse": ({"POST": frozenset({"runner"})}, None),
    "workstations:compliance": ({"GET": COMPLIANCE}, None),
    "workstations:compliance-open": ({"POST": COMPLIANCE}, None),
    "workstations:compliance-case": ({"GET": COMPLIANCE}, None),
    "workstations:compliance-step": ({"POST": COMPLIANCE}, None),
    "workstations:count-room": ({"GET": COUNT_ROOM}, None),
    "workstations:count-room-remove": ({"POST": COUNT_ROOM}, None),
    "workstations:count-room-count": ({"POST": COUNT_ROOM}, None),
    "workstations:count-room-recount": ({"POST": COUNT_ROOM}, None),
    "workstations:count-room-sign": ({"POST": COUNT_ROOM}, None),
    "workstations:count-room-tips": ({"POST": COUNT_ROOM}, None),
    "workstations:count-room-decide": ({"POST": COUNT_ROOM}, None),
    "workstations:report": ({"GET": REPORT_SIGNERS}, None),
    "workstations:report-pdf": ({"GET": REPORT_SIGNERS}, None),
}
# Django's admin site is outside the matrix: it admits is_staff users only, by Django's own
# model permissions, and is read-only for money and state (tests/integration/test_admin_readonly.py).
NOT_IN_MATRIX = {"admin"}


def _endpoints() -> dict[str, tuple[str, object]]:
    """name → (route, callback) of every URL, outside the admin; an unnamed URL is ``""``."""
    found: dict[str, tuple[str, object]] = {}

    def walk(patterns, prefix: str, namespace: str | None) -> None:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                if pattern.namespace in NOT_IN_MATRIX:
                    continue
                walk(pattern.url_patterns, prefix + str(pattern.pattern), pattern.namespace or namespace)
            elif isinstance(pattern, URLPattern):
                name = f"{namespace}:{pattern.name}" if namespace and pattern.name else (pattern.name or "")
                found.setdefault(name, (prefix + str(pattern.pattern), pattern.callback))

    walk(get_resolver().url_patterns, "", None)
    return found


def _methods(callback) -> set[str]:
    view = getattr(callback, "view_class", None) or getattr(callback, "cls", None)
    if view is None:
        return {"GET"}  # a function view (the dashboard pages, read-only)
    return {m.upper() for m in ("get", "post", "put", "patch", "delete") if hasattr(view, m)}


def test_every_endpoint_is_in_the_matrix():
    endpoints = _endpoints()
    missing = sorted(f"{name or '<unnamed>'} ({route})" for name, (route, _) in endpoints.items() if name not in MATRIX)
    assert not missing, f"endpoints without a row in MATRIX: {missing}"
    stale = sorted(set(MATRIX) - set(endpoints))
    assert not stale, f"rows of MATRIX for endpoints that no longer exist: {stale}"
    for name, (route, callback) in endpoints.items():
        if _is_api(callback):  # every method an API view answers has its row
            assert set(MATRIX[name][0]) == _methods(callback), (name, route)


def _is_api(callback) -> bool:
    view = getattr(callback, "view_class", None) or getattr(callback, "cls", None)
    return view is not None and issubclass(view, APIView)


@pytest.fixture
def casino(table, settings):
    """R1 (roulette: a coup, a bet, a slip), B1 (black jack: a shoe), R2; one user per role; a
    dealer at the endpoint's table and one elsewhere; a device at each."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # nine users per test
    table_open(code="B1", game="blackjack", opener_cents=1_000_000, actor=ACTOR, rules={})
    table_open(code="R2", game="english_roulette", opener_cents=1_000_000, actor=ACTOR, rules={})
    patron = make_patron(100_000)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet = bet_place(
        round_id=coup, patron=patron, stake_cents=1_000, bet={"type": "chance_simple", "chance": "rouge"}, actor=ACTOR
    )["bets"][0]["bet"]
    shoe = shoe_start(table="B1", actor=ACTOR)["shoe"]
    users = {role: staff_user(f"m-{role}", role) for role in sorted(EVERY)}
    users["dealer_elsewhere"] = staff_user("m-dealer-elsewhere", "dealer")
    from cashier.services.slips import slip_request

    slip = slip_request(kind="fill", table="R1", denominations={"500": 2}, actor="m-pit_boss")["serial"]
    tokens = {
        code: device_token_issue(name=f"m-terminal-{code}", kind="terminal", table=code, actor="m-pit_boss")["token"]
        for code in ("R1", "B1", "R2")
    }
    return {"patron": patron, "round": coup, "bet": bet, "shoe": shoe, "slip": slip, "users": users, "tokens": tokens}


def _target(name: str, route: str) -> str:
    return "B1" if "shoe" in name or "shoe" in route else "R1"


def _kwargs(name: str, route: str, casino: dict) -> dict:
    values = {
        "code": _target(name, route),
        "round_id": casino["round"],
        "shoe_id": casino["shoe"],
        "bet_id": casino["bet"],
        "id": casino["shoe"] if name.startswith("shoe") else casino["round"],
        "kind": "fill",
        "serial": casino["slip"],
        "scope": "table",
        "key": "R1",
        "name": "m-terminal-R2",
        "username": "m-runner",
        "day": "2026-11-29",
        "approval": "00000000-0000-0000-0000-000000000000",
        "investigation": "00000000-0000-4000-8000-000000000000",
        "position": 1,
        "opened_event": 1,
        "event": 1,
        "decision": "confirm",
        "operation": "purchase",
        "slug": "variances",
        "case": "SC00001",
        "what": "findings",
        "outage": "OUT1",
        "form": "OUT1-R1",
    }
    if name.startswith("dashboard:patron"):
        values["code"] = casino["patron"]
    if name in (
        "patron-detail",
        "patron-self-limit",
        "patron-identity",
        "patron-pin",
        "patron-pin-reset",
        "patron-comps",
        "patron-comp-reverse",
    ):
        values["code"] = casino["patron"]
    params = re.findall(r"<(?:\w+:)?(\w+)>", route)
    return {p: values[p] for p in params}


def _subjects(scope: str | None) -> list[str]:
    return [*sorted(EVERY), "dealer_elsewhere", "device", "device_elsewhere", "anonymous"]


def _expected(subject: str, allowed, scope: str | None, api: bool) -> bool:
    if allowed == PUBLIC:
        return True
    if subject == "anonymous":
        return False
    if subject == "dealer_elsewhere":
        return "dealer" in allowed and scope is None
    if subject.startswith("device"):
        return api and scope is not None and "dealer" in allowed and subject == "device"
    return subject in allowed


def _call(client, method: str, url: str):
    if method == "GET":
        return client.get(url)
    return client.generic(method, url, data="{}", content_type="application/json")


ROWS = [(name, method) for name, (methods, _) in MATRIX.items() for method in methods]


@pytest.mark.parametrize(("name", "method"), ROWS, ids=[f"{m} {n or '/'}" for n, m in ROWS])
def test_each_role_is_allowed_or_denied_as_the_matrix_says(casino, name, method):
    endpoints = _endpoints()
    if name not in endpoints:
        pytest.fail(f"{name} is in MATRIX but not in the URLs")
    route, callback = endpoints[name]
    allowed, scope = MATRIX[name][0][method], MATRIX[name][1]
    api = _is_api(callback)
    kwargs = _kwargs(name, route, casino)
    url = reverse(name, kwargs=kwargs) if name else "/"
    target = _target(name, route)
    other = "R2" if target != "R2" else "R1"
    # The dealers' assignments for this endpoint; no savepoints around the calls (the services'
    # durable transactions may not nest in one): a call's effects stay, but no state they can
    # change decides access (a dealer's assignment, a device's table, the objects' tables).
    dealer_assign(dealer="m-dealer", table=target, actor="m-pit_boss")
    dealer_assign(dealer="m-dealer-elsewhere", table=other, actor="m-pit_boss")
    wrong = []
    for subject in _subjects(scope):
        client = APIClient()
        client.raise_request_exception = False
        user = casino["users"].get(subject)
        if subject == "device":
            client.credentials(HTTP_AUTHORIZATION=f"Device {casino['tokens'][target]}")
        elif subject == "device_elsewhere":
            client.credentials(HTTP_AUTHORIZATION=f"Device {casino['tokens'][other]}")
        elif user is not None:
            if api:
                client.force_authenticate(user)
            else:
                client.force_login(user)
        response = _call(client, method, url)
        status = response.status_code
        body = response.json() if response.get("Content-Type", "").startswith("application/json") else {}
        # A page's form refused by its service (segregation of duties: the requester accepting
        # his own slip) answers 403 with the refusal on the page: the page itself was open to him.
        refused_act = not api and b'class="refused"' in response.content
        denied_here = status == 401 or (
            status == 403 and not refused_act and (not api or body.get("error") == "permission_denied")
        )
        if not api and allowed != PUBLIC and status == 302 and "login" in response.get("Location", ""):
            denied_here = True
        if status >= 500:
            wrong.append(f"{subject}: {status} (server error)")
        elif denied_here == _expected(subject, allowed, scope, api):
            expected = "allowed" if denied_here else "denied"
            wrong.append(f"{subject}: {status} {body.get('detail', '')!s:.80}, expected {expected}")
        if subject == "anonymous" and api and allowed != PUBLIC and status != 401:
            wrong.append(f"anonymous: {status}, expected 401")
    assert not wrong, f"{method} {url}: " + "; ".join(wrong)
