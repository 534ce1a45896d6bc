"""The exception log (25 CFR 543.16(c)(3)(vii)): every parameter change, correction, override,
void, reversal, refused bet, AML flag, role change and variance over its threshold of a gaming
day, with who, when (UTC), before and after; filtered by kind, table and person; JSON and CSV.
Bad filters are 400 naming the filter; roles outside the log's readers are 403."""

import csv
import io
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import yaml
from django.conf import settings
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from cashier.services.cage import chips_purchase
from cashier.services.cage_shifts import cage_shift_close, open_windows, window_book, window_of
from core.denominations import cash_denominations, chip_denominations, decompose
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from tests.conftest import ACTOR, TABLE_DEALER, approve, make_patron, open_by_count, staff_user
from tests.integration.test_aml_visits import past_purchase

pytestmark = pytest.mark.django_db

URL = "/api/audit/exceptions/"
PLEIN_17 = {"type": "plein", "numbers": [17]}


def _client(username: str, *roles: str) -> APIClient:
    client = APIClient()
    client.force_authenticate(staff_user(username, *roles))
    return client


@pytest.fixture
def auditor() -> APIClient:
    return _client("aud1", "auditor")


@pytest.fixture
def day(api, table, colour_patron) -> str:
    """A day at R1 with a rules change, a refused bet and a voided coup by ``dealer1`` (pit
    boss), a role change by ``adm1``, a 3,500 EUR purchase and a cage shift closed 200 EUR short."""
    assert api.post("/api/tables/R1/rules", {"rules": {"max_bet_cents": 20_000}}, format="json").status_code == 200
    coup = api.post("/api/tables/R1/rounds", {}, format="json").json()["round"]
    refused = api.post(
        f"/api/rounds/{coup}/bets",
        {"patron": colour_patron, "stake_cents": 30_000, "chips": "colour", "bet": PLEIN_17},
        format="json",
    )
    assert refused.status_code == 400
    assert api.post(f"/api/rounds/{coup}/void", {"reason": "ball left the wheel"}, format="json").status_code == 200
    staff_user("sam", "cashier")
    admin = _client("adm1", "admin")
    asked = admin.post("/api/staff/users/sam/roles", {"roles": ["cage_supervisor"]}, format="json")
    assert approve(asked, _client("adm2", "admin")).status_code == 200
    chips_purchase(patron=make_patron(), amount_cents=350_000, actor=ACTOR)
    drawer = window_book(window_of(open_windows()["dealer1"]))
    cage_shift_close(
        cash=decompose(drawer["cash_cents"] - 20_000, cash_denominations()),
        chips=decompose(drawer["chips_cents"], chip_denominations()),
        actor="dealer1",  # the api client's user: the ``api`` fixture handed the shift to him
        variance_reason="short by two notes",
        approver="sam",  # over the variance threshold: a cage supervisor verifies it
    )
    return current_gaming_day().isoformat()


def _kinds(body: dict) -> list[str]:
    return [row["kind"] for row in body["rows"]]


def test_the_days_log_lists_each_exception_with_who_when_before_and_after(auditor, day):
    response = auditor.get(URL, {"gaming_day": day})
    assert response.status_code == 200
    body = response.json()
    assert body["gaming_day"] == day and body["count"] == len(body["rows"])
    kinds = ["aml_flag", "parameter_change", "refused_bet", "role_change", "variance", "void"]
    assert sorted(set(_kinds(body))) == kinds
    rows = {row["type"]: row for row in body["rows"]}
    rules = rows["TableRulesChanged"]
    assert (rules["person"], rules["table"]) == ("dealer1", "R1")
    assert rules["before"] == {"max_bet_cents": 10_000} and rules["after"] == {"max_bet_cents": 20_000}
    assert rules["at"].endswith("Z") and rules["event"] == Event.objects.get(type="TableRulesChanged").position
    refusal = rows["BetRefused"]
    assert (refusal["table"], refusal["person"], refusal["amount_cents"], refusal["currency"]) == (
        "R1",
        "dealer1",
        30_000,
        "EUR",
    )
    assert refusal["event"] is None and refusal["source"] == "bet_refusals"
    assert refusal["what"] == "table R1, over the table maximum: 300.00 EUR on this position, the maximum is 200.00 EUR"
    void = rows["RoundVoided"]
    assert void["what"].endswith("voided: ball left the wheel") and void["after"] == {"state": "voided"}
    roles = rows["StaffRolesChanged"]
    assert (roles["person"], roles["subject"]) == ("adm1", "user sam")
    assert roles["before"] == {"roles": ["Cashier (cage)"]} and roles["after"] == {"roles": ["Cage supervisor"]}
    assert rows["AmlTransactionLogged"]["amount_cents"] == 350_000
    assert "cash transaction logged, cash in 3,500.00 EUR (day's total" in rows["AmlTransactionLogged"]["what"]
    variance = rows["CageShiftClosed"]
    assert (variance["kind"], variance["amount_cents"], variance["person"]) == ("variance", -20_000, "dealer1")
    assert (
        sum(variance["after"][k] for k in ("counted_cash_cents", "counted_chips_cents"))
        - sum(variance["before"][k] for k in ("expected_cash_cents", "expected_chips_cents"))
        == -20_000
    )
    assert variance["after"]["variance_reason"] == "short by two notes"
    moments = [row["at"] for row in body["rows"]]
    assert moments == sorted(moments)


def test_the_log_filters_by_kind_table_and_person(auditor, day):
    refused = auditor.get(URL, {"gaming_day": day, "kind": "refused_bet"}).json()
    assert _kinds(refused) == ["refused_bet"]
    at_r1 = auditor.get(URL, {"gaming_day": day, "table": "R1"}).json()
    assert {row["type"] for row in at_r1["rows"]} == {"TableRulesChanged", "BetRefused", "RoundVoided"}
    assert auditor.get(URL, {"gaming_day": day, "table": "R9"}).json()["rows"] == []
    by_admin = auditor.get(URL, {"gaming_day": day, "person": "adm1"}).json()
    assert [row["type"] for row in by_admin["rows"]] == ["StaffRolesChanged"]
    about_sam = auditor.get(URL, {"gaming_day": day, "person": "sam"}).json()  # the user it concerns
    assert [row["type"] for row in about_sam["rows"]] == ["StaffRolesChanged"]
    other_day = auditor.get(URL, {"gaming_day": "2001-01-01"}).json()
    assert other_day["rows"] == [] and other_day["count"] == 0


def test_the_csv_has_the_header_first_amounts_in_units_and_a_currency_column(auditor, day):
    response = auditor.get("/api/audit/exceptions.csv", {"gaming_day": day, "kind": "refused_bet"})
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert f'filename="exceptions-{day}.csv"' in response["Content-Disposition"]
    lines = list(csv.reader(io.StringIO(response.content.decode())))
    header = lines[0]
    assert header[:4] == ["at", "local time", "gaming day", "kind"] and header[-1] == "currency"
    (row,) = [dict(zip(header, line, strict=True)) for line in lines[1:]]
    assert (row["kind"], row["table"], row["amount"], row["currency"]) == ("refused_bet", "R1", "300.00", "EUR")
    assert row["after"] == "refused: table maximum" and row["before"] == ""
    # UTC to the second, then the same moment in the casino's zone, named
    at = datetime.strptime(row["at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    local = at.astimezone(ZoneInfo(settings.CASINO_TIMEZONE))
    assert row["local time"] == f"{local:%Y-%m-%d %H:%M:%S} {local.tzname()}"
    rules = auditor.get("/api/audit/exceptions.csv", {"gaming_day": day, "kind": "parameter_change"})
    text = rules.content.decode()
    assert "max bet: 100.00 EUR" in text and "{" not in text and "_cents" not in text  # words, not JSON


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"gaming_day": "2026-13-01"}, "gaming_day"),
        ({"gaming_day": "yesterday"}, "gaming_day"),
        ({"kind": "mistake"}, "kind"),
        ({"table": "R1;DROP"}, "table"),
        ({"person": "x" * 151}, "person"),
    ],
)
def test_a_bad_filter_is_a_400_naming_it(auditor, cage, query, field):
    response = auditor.get(URL, query)
    assert response.status_code == 400
    assert response.json()["field"] == field


@pytest.mark.parametrize("role", ["dealer", "cashier", "count_team", "runner", "drop_team"])
def test_roles_outside_the_logs_readers_get_403(cage, role):
    client = _client(f"u-{role}", role)
    assert client.get(URL).status_code == 403
    assert client.get("/api/audit/exceptions.csv").status_code == 403


@pytest.mark.parametrize("role", ["auditor", "admin", "cage_supervisor", "pit_boss"])
def test_the_auditor_admin_cage_supervisor_and_pit_boss_read_it(cage, role):
    assert _client(f"u-{role}", role).get(URL).status_code == 200


def test_anonymous_gets_401(cage):
    assert APIClient().get(URL).status_code == 401


def _confirm(client: APIClient, asked) -> object:
    return client.post(f"/api/approvals/{asked.json()['approval']['id']}/confirm", {}, format="json")


def test_an_override_and_a_correction_name_the_maker_and_the_second_signer(auditor, table):
    """A large fill signed by a cage supervisor (an override of the fill limit) and a settled
    coup reversed with a pit boss's approval (a correction), each with both names."""
    pit1, pit2, super1 = _client("pit1", "pit_boss"), _client("pit2", "pit_boss"), _client("super1", "cage_supervisor")
    asked = pit1.post("/api/tables/R1/slips", {"kind": "fill", "denominations": {"1000000": 6}}, format="json")
    assert asked.status_code == 202 and _confirm(super1, asked).status_code == 201
    coup = pit1.post("/api/tables/R1/rounds", {}, format="json").json()["round"]
    assert pit1.post(f"/api/rounds/{coup}/close-bets", {}, format="json").status_code == 200
    assert pit1.post(f"/api/rounds/{coup}/result", {"number": 7}, format="json").status_code == 200
    reversal = pit1.post(
        f"/api/rounds/{coup}/reversal", {"reason": "wrong number keyed", "approver": "pit2"}, format="json"
    )
    assert reversal.status_code == 202 and _confirm(pit2, reversal).status_code == 200
    log = auditor.get(URL, {"table": "R1"}).json()
    (override,) = [row for row in log["rows"] if row["kind"] == "override"]
    assert (override["person"], override["approver"], override["type"]) == ("pit1", "super1", "ApprovalConfirmed")
    assert override["what"] == "super1 signed a large fill"
    assert (override["before"], override["after"]) == ({"state": "pending"}, {"state": "confirmed"})
    (correction,) = [row for row in log["rows"] if row["kind"] == "correction"]
    assert (correction["person"], correction["approver"], correction["type"]) == ("pit1", "pit2", "RoundReversed")
    assert correction["what"].endswith("reversed: wrong number keyed")
    assert correction["before"]["state"] == "settled" and correction["after"] == {"state": "reversed"}
    by_pit2 = auditor.get(URL, {"person": "pit2"}).json()
    assert [row["kind"] for row in by_pit2["rows"]] == ["correction"]  # the second signer is a person too


# --- AML per visit and structuring, read by the compliance desk -----------------------------------


def test_per_visit_basis_a_purchase_completing_2000_eur_in_one_visit_is_a_409(settings, api, cage):
    settings.AML_BASIS = "visit"
    nameless = api.post("/api/patrons/register", {"kind": "identified", "name": "Walk-in"}, format="json").json()
    code = nameless["patron"]
    past_purchase(code, 150_000, timezone.now() - timedelta(hours=1))
    response = api.post("/api/cage/purchases", {"patron": code, "amount_cents": 50_000}, format="json")
    assert response.status_code == 409
    assert response.json()["field"] == "patron" and "in one visit" in response.json()["detail"]
    log = _client("cs1", "cage_supervisor").get(URL, {"kind": "aml_flag"}).json()
    (refused,) = log["rows"]
    assert (refused["type"], refused["amount_cents"], refused["currency"]) == ("AmlTransactionRefused", 50_000, "EUR")
    assert "visit's total 2,000.00 EUR" in refused["what"]


def test_structuring_on_repeated_visits_is_an_aml_flag_with_its_amount_in_eur(settings, api, cage):
    settings.AML_BASIS = "visit"
    code = make_patron()
    now = timezone.now()
    past_purchase(code, 180_000, now - timedelta(days=5))
    past_purchase(code, 185_000, now - timedelta(days=2))
    assert api.post("/api/cage/purchases", {"patron": code, "amount_cents": 195_000}, format="json").status_code == 201
    compliance = _client("cs1", "cage_supervisor")
    log = compliance.get(URL, {"kind": "aml_flag", "person": code}).json()
    (flag,) = [row for row in log["rows"] if row["type"] == "AmlStructuringSuspected"]
    assert (flag["amount_cents"], flag["currency"], flag["person"], flag["source"]) == (
        195_000,
        "EUR",
        "system",
        "aml_structuring",
    )
    assert "suspected structuring: 3 visits in 7 days" in flag["what"] and "(2,000.00 EUR)" in flag["what"]
    assert [u["total_cents"] for u in flag["after"]["units"]] == [180_000, 185_000, 195_000]
    text = compliance.get("/api/audit/exceptions.csv", {"kind": "aml_flag", "person": code}).content.decode()
    assert "AmlStructuringSuspected" in text and ",1950.00," in text
    assert _client("c1", "cashier").get(URL, {"kind": "aml_flag"}).status_code == 403


def test_the_schema_documents_the_logs_filters(api):
    schema = yaml.safe_load(api.get("/api/schema/").content)
    operation = schema["paths"]["/api/audit/exceptions/"]["get"]
    assert {p["name"] for p in operation["parameters"]} == {"gaming_day", "kind", "table", "person"}
    kind = next(p for p in operation["parameters"] if p["name"] == "kind")
    assert "refused_bet" in kind["schema"]["enum"] and "aml_flag" in kind["schema"]["enum"]
    assert {"400", "401", "403"} <= set(operation["responses"])


def test_a_role_change_reads_before_and_after_by_the_roles_labels_in_json_csv_and_page(auditor, day, client):
    """The "what" column says "Cage supervisor": before and after say it the same way, never
    the role's code (``cage_supervisor``)."""
    # sam's change (the day's shift cashier was created with his role through the services too).
    sams = {"gaming_day": day, "kind": "role_change", "person": "sam"}
    (row,) = auditor.get(URL, sams).json()["rows"]
    assert row["what"] == "roles of sam: Cashier (cage) → Cage supervisor"
    assert (row["before"], row["after"]) == ({"roles": ["Cashier (cage)"]}, {"roles": ["Cage supervisor"]})
    response = auditor.get("/api/audit/exceptions.csv", sams)
    lines = list(csv.reader(io.StringIO(response.content.decode())))
    (cells,) = [dict(zip(lines[0], line, strict=True)) for line in lines[1:]]
    assert (cells["before"], cells["after"]) == ("roles: Cashier (cage)", "roles: Cage supervisor")
    client.force_login(staff_user("aud2", "auditor"))
    page = client.get(
        reverse("workstations:audit-exceptions"), {"day": day, "kind": "role_change", "person": "sam"}
    ).content.decode()
    line = page[page.index('<tr data-kind="role_change">') :]
    line = line[: line.index("</tr>")]
    assert "<td>roles: Cashier (cage)</td><td>roles: Cage supervisor</td>" in line
    assert "cage_supervisor" not in line and "cashier</td>" not in line


def test_a_role_no_longer_known_reads_as_its_code_and_no_roles_as_none():
    from audit.exceptions import _role_labels, _roles

    assert _role_labels(["pit_boss", "croupier_retired"]) == ["Pit boss", "croupier_retired"]
    assert (_role_labels(None), _roles([])) == ([], "none")


def test_the_csvs_before_and_after_read_in_words_with_amounts_in_currency_units():
    from audit.api.exception_log import _words

    assert _words({"day_total_cents": 200_000}) == "day total: 2,000.00 EUR"
    flagged = {"visits": 3, "units": [{"total_cents": 180_000, "cleared": True}, {"total_cents": 5}], "note": None}
    assert _words(flagged) == "visits: 3; units: (total: 1,800.00 EUR; cleared: yes), (total: 0.05 EUR); note: none"


@pytest.mark.parametrize("day", ["0001-01-01", "0001-01-03", "9999-12-31"])
def test_a_day_at_the_calendars_ends_reads_as_an_empty_log(auditor, cage, day):
    """The structuring window looks back from the day asked: near year 1 there are no days
    before it, which is no reason for a 500."""
    for path in ("/api/audit/exceptions/", "/api/audit/exceptions.csv"):
        response = auditor.get(path, {"gaming_day": day})
        assert response.status_code == 200, (path, response.content[:200])


def test_an_opener_off_the_last_closer_is_listed_with_its_explanation_under_the_threshold_too(auditor, cage):
    from games.services.tables import table_close, table_open

    staff_user("dealer9", "dealer")
    staff_user("pit9", "pit_boss")
    staff_user("pit8", "pit_boss")
    signed = {"dealer": "dealer9", "pit_boss": "pit9", "actor": "pit9"}
    table_open(code="R9", game="english_roulette", opener={"10000": 50}, **signed)
    table_close(code="R9", closer={"10000": 50}, **signed)
    assert 5_000 < settings.CASINO_VARIANCE_THRESHOLD_CENTS
    table_open(
        code="R9",
        game="english_roulette",
        opener={"10000": 49, "2500": 2},
        dealer="dealer9",
        pit_boss="pit8",
        actor="pit8",
        variance_reason="two 25.00 EUR chips found under the table after the close",
    )
    rows = auditor.get(URL, {"gaming_day": current_gaming_day().isoformat(), "kind": "variance"}).json()["rows"]
    (row,) = [r for r in rows if r["table"] == "R9"]
    assert (
        row["what"] == "opener of R9: variance -50.00 EUR (“two 25.00 EUR chips found under the table after the close”)"
    )
    assert row["after"]["variance_reason"] == "two 25.00 EUR chips found under the table after the close"
    assert (row["person"], row["amount_cents"]) == ("pit8", -5_000)


def test_a_patrons_pin_locked_by_wrong_pins_and_its_reset_are_listed_with_who_confirmed(auditor, api, cage):
    """Five wrong PINs in a row may be someone trying a patron's PIN: the lock, and the reset two
    cage logins signed, are in the day's log (the log answered 500 once a PIN was locked)."""
    from patrons.services.patrons import patron_register
    from patrons.services.self_limit import MAX_PIN_ATTEMPTS, patron_pin_set

    code = patron_register(kind="identified", name="Pin Target", document="ID-PIN-77", actor=ACTOR)["patron"]
    patron_pin_set(patron=code, pin="2468", document="ID-PIN-77", actor=ACTOR)
    for _ in range(MAX_PIN_ATTEMPTS):
        wrong = api.post(f"/api/patrons/{code}/self-limit", {"max_bet_cents": 1_000, "pin": "0000"}, format="json")
        assert wrong.status_code == 400
    asked = api.post(f"/api/patrons/{code}/pin-reset", {}, format="json")
    assert approve(asked, _client("super3", "cage_supervisor")).status_code == 200
    body = auditor.get(URL, {"kind": "patron_pin"}).json()
    rows = [(row["type"], row["approver"], row["what"]) for row in body["rows"]]
    assert rows == [
        (
            "PatronPinLocked",
            None,
            f"PIN of patron {code} locked after {MAX_PIN_ATTEMPTS} wrong PINs in a row: someone may be trying it; "
            "the cage resets it, a cage supervisor confirming",
        ),
        ("PatronPinReset", "super3", f"PIN of patron {code} reset: he chooses a new one, his identity document shown"),
    ]
    assert auditor.get(URL).status_code == 200 and auditor.get("/api/audit/exceptions.csv").status_code == 200


def test_a_large_counted_opener_lists_the_cage_supervisors_signature_as_an_override(auditor, cage):
    """The dealer and the pit boss sign the opener's count (dual custody, no override); the cage
    supervisor's signature passes the large-opener limit: that one is the override."""
    pit1, dealer, super1 = (
        _client("pit1", "pit_boss"),
        _client(TABLE_DEALER, "dealer"),
        _client("super1", "cage_supervisor"),
    )
    large = settings.CASINO_LARGE_OPENER_CENTS + 100_000
    opened = open_by_count(pit1, "L1", dealer, super1, opener_cents=large, pit_boss="pit1")
    assert opened.status_code == 201, opened.json()
    overrides = [row for row in auditor.get(URL).json()["rows"] if row["kind"] == "override"]
    assert [(row["person"], row["approver"], row["what"]) for row in overrides] == [
        ("pit1", "super1", "super1 signed a table opening with a large opener")
    ]


def test_a_coup_still_in_play_twelve_hours_after_it_opened_is_listed_until_it_is_voided(auditor, api, table):
    from games.models import Round

    fresh = api.post("/api/tables/R1/rounds", {}, format="json").json()["round"]
    day = str(current_gaming_day())

    def listed() -> list[dict]:
        got = auditor.get(URL, {"day": day, "kind": "stale_coup"})
        assert got.status_code == 200
        return got.json()["rows"]

    assert listed() == []  # a coup of a few minutes is no exception
    Round.objects.filter(pk=fresh).update(opened_at=timezone.now() - timedelta(hours=12, minutes=1))
    (row,) = listed()
    assert (row["kind"], row["type"], row["table"], row["person"], row["source"]) == (
        "stale_coup",
        "CoupLeftInPlay",
        "R1",
        "system",
        "coups",
    )
    assert row["what"] == (
        "table R1, coup 1: opened by dealer1 and still in play more than 12 hours later: settle it or void it "
        "(two signatures); its face-down cards are no longer withheld from the auditor's database role"
    )
    assert row["event"] == Event.objects.get(stream=f"round/{fresh}", type="RoundOpened").position
    assert api.post(f"/api/rounds/{fresh}/void", {"reason": "left open overnight"}, format="json").status_code == 200
    assert listed() == []
