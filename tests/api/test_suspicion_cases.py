"""Suspicion cases: the compliance officer opens a case from an AML flag or by hand, attaches
the patron's cash transactions, writes findings, decides (file / no file, with a reason) and
records the filing with its reference; each step is an event, in order or refused (409); only
the compliance role sees or acts (403); bad input is 400 naming the field. The ledger carries
each step's digest, never its words."""

from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.utils import timezone
from rest_framework.test import APIClient

from compliance import selectors, services
from compliance.models import CaseRecord
from ledger.errors import InvalidInput, StateConflict
from ledger.models import Event
from staff.roles import IncompatibleRoles, RoleRequired
from staff.services import staff_account_create
from tests.conftest import ACTOR, make_patron

pytestmark = pytest.mark.django_db

OFFICER = "officer1"
BASE = "/api/compliance/cases/"


def account(username: str, *roles: str):
    from django.contrib.auth import get_user_model

    staff_account_create(username=username, password="x", roles=list(roles), actor="manage.py")
    return get_user_model().objects.get(username=username)


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def officer() -> APIClient:
    return client_for(account(OFFICER, "compliance"))


@pytest.fixture
def flagged(cage) -> dict:
    """A patron who bought 3,500.00 EUR of chips: the AML log's flag and its transaction."""
    patron = make_patron(350_000)
    flag = Event.objects.get(stream=f"aml/{patron}", type="AmlTransactionLogged")
    purchase = Event.objects.get(type="ChipsPurchased", data__patron=patron)
    return {"patron": patron, "flag": flag.position, "purchase": purchase.position}


def test_a_case_opened_from_an_aml_flag_runs_to_a_recorded_filing_one_event_a_step(officer, flagged, settings):
    settings.AML_JURISDICTION = "US"
    opened = officer.post(
        BASE + "open", {"flag": flagged["flag"], "reason": "3,500 EUR in cash, no play"}, format="json"
    )
    assert opened.status_code == 201, opened.json()
    case = opened.json()
    assert case["case"] == "SC00001"
    assert (case["patron"], case["source"], case["state"], case["filing_kind"]) == (
        flagged["patron"],
        "flag",
        "open",
        "SAR-C",
    )
    assert case["flag"]["type"] == "AmlTransactionLogged"
    deadline = datetime.fromisoformat(case["deadline"]) - datetime.fromisoformat(case["opened_at"])
    assert deadline == timedelta(days=30)
    assert case["days_left"] == 30  # calendar days, as the rule counts them
    # The flagged purchase comes attached with the case.
    assert [(t["position"], t["amount_cents"], t["direction"]) for t in case["transactions"]] == [
        (flagged["purchase"], 350_000, "in")
    ]

    second = make_purchase(flagged["patron"], 150_000)
    attached = officer.post(BASE + "SC00001/transactions", {"positions": [second]}, format="json")
    assert attached.status_code == 201, attached.json()
    assert [t["amount_cents"] for t in attached.json()["transactions"]] == [350_000, 150_000]

    found = officer.post(BASE + "SC00001/findings", {"text": "Bought chips twice, played none."}, format="json")
    assert found.json()["findings"][0] | {"at": None} == {
        "text": "Bought chips twice, played none.",
        "by": OFFICER,
        "at": None,
    }
    decided = officer.post(
        BASE + "SC00001/decision", {"decision": "file", "reason": "no gaming purpose"}, format="json"
    )
    assert decided.json()["state"] == "to_file"
    assert decided.json()["decision"]["by"] == OFFICER

    filed_at = timezone.now()
    filing = {"kind": "SAR-C", "reference": "BSA-31000123456789", "filed_at": filed_at.isoformat()}
    recorded = officer.post(BASE + "SC00001/filing", filing, format="json")
    assert recorded.status_code == 201, recorded.json()
    body = recorded.json()
    assert (body["state"], body["days_left"], body["overdue"]) == ("filed", None, False)
    assert body["filing"]["reference"] == "BSA-31000123456789"
    assert datetime.fromisoformat(body["filing"]["filed_at"]) == filed_at

    events = list(Event.objects.filter(stream="suspicion/SC00001").order_by("position"))
    assert [e.type for e in events] == [
        "SuspicionCaseOpened",
        "TransactionsAttached",
        "TransactionsAttached",
        "FindingsWritten",
        "CaseDecided",
        "FilingRecorded",
    ]
    assert {e.actor for e in events} == {OFFICER}
    # The ledger holds the reference and a digest, never the patron, the findings or the filing.
    for event in events:
        assert set(event.data) == {"case", "content_digest"}
    assert flagged["patron"] not in str([e.data for e in events])
    assert [c["case"] for c in officer.get(BASE).json()["cases"]] == ["SC00001"]


def make_purchase(patron: str, cents: int) -> int:
    from cashier.services.cage import chips_purchase

    chips_purchase(patron=patron, amount_cents=cents, actor=ACTOR)
    return Event.objects.filter(type="ChipsPurchased", data__patron=patron).order_by("-position").first().position


def test_a_case_opened_by_hand_owes_a_tracfin_report_with_the_configured_target(officer, cage, settings):
    settings.AML_JURISDICTION = "FR"
    settings.COMPLIANCE_TRACFIN_DAYS = 10
    patron = make_patron(100_000)
    case = officer.post(BASE + "open", {"patron": patron, "reason": "tip from the floor"}, format="json").json()
    assert (case["source"], case["flag"], case["filing_kind"], case["deadline_days"]) == ("hand", None, "TRACFIN", 10)
    assert case["transactions"] == []


def test_only_the_compliance_role_sees_or_acts_on_cases(flagged, officer):
    officer.post(BASE + "open", {"flag": flagged["flag"], "reason": "r"}, format="json")
    for username, role in (("cash1", "cashier"), ("boss1", "pit_boss"), ("aud1", "auditor"), ("adm1", "admin")):
        other = client_for(account(username, role))
        for response in (
            other.get(BASE),
            other.get(BASE + "SC00001/"),
            other.post(BASE + "open", {"patron": flagged["patron"], "reason": "r"}, format="json"),
            other.post(BASE + "SC00001/findings", {"text": "t"}, format="json"),
        ):
            assert response.status_code == 403, (role, response.json())
    with pytest.raises(RoleRequired, match="needs the role compliance officer"):
        services.case_findings_write(case="SC00001", text="t", actor="cash1")
    assert Event.objects.filter(type="FindingsWritten").count() == 0


def test_compliance_cannot_be_held_with_the_cashier_or_pit_boss_role(db):
    for other in ("cashier", "pit_boss"):
        with pytest.raises(IncompatibleRoles, match=f"compliance and {other}"):
            staff_account_create(username=f"both-{other}", password="x", roles=["compliance", other], actor="manage.py")


def test_steps_out_of_order_are_refused_with_409_and_record_nothing(officer, flagged):
    officer.post(BASE + "open", {"flag": flagged["flag"], "reason": "r"}, format="json")
    again = officer.post(BASE + "open", {"flag": flagged["flag"], "reason": "twice"}, format="json")
    assert (again.status_code, again.json()["field"]) == (409, "flag")
    assert "SC00001" in again.json()["detail"]

    no_findings = officer.post(BASE + "SC00001/decision", {"decision": "file", "reason": "r"}, format="json")
    assert no_findings.status_code == 409
    assert "no findings yet" in no_findings.json()["detail"]

    filing = {"kind": "SAR-C", "reference": "X1", "filed_at": timezone.now().isoformat()}
    undecided = officer.post(BASE + "SC00001/filing", filing, format="json")
    assert undecided.status_code == 409
    assert "not decided" in undecided.json()["detail"]

    attached_twice = officer.post(BASE + "SC00001/transactions", {"positions": [flagged["purchase"]]}, format="json")
    assert attached_twice.status_code == 409
    assert "attached already" in attached_twice.json()["detail"]

    officer.post(BASE + "SC00001/findings", {"text": "f"}, format="json")
    no_file = officer.post(
        BASE + "SC00001/decision", {"decision": "no_file", "reason": "a known gambler"}, format="json"
    )
    assert no_file.json()["state"] == "not_filed"
    for path, body in (
        ("findings", {"text": "late"}),
        ("decision", {"decision": "file", "reason": "changed my mind"}),
        ("filing", filing),
    ):
        refused = officer.post(BASE + f"SC00001/{path}", body, format="json")
        assert refused.status_code == 409, (path, refused.json())
    assert [e.type for e in Event.objects.filter(stream="suspicion/SC00001").order_by("position")] == [
        "SuspicionCaseOpened",
        "TransactionsAttached",
        "FindingsWritten",
        "CaseDecided",
    ]


def test_a_filing_is_recorded_once(officer, flagged):
    officer.post(BASE + "open", {"flag": flagged["flag"], "reason": "r"}, format="json")
    officer.post(BASE + "SC00001/findings", {"text": "f"}, format="json")
    officer.post(BASE + "SC00001/decision", {"decision": "file", "reason": "r"}, format="json")
    filing = {"kind": "TRACFIN", "reference": "DS-2026-0042", "filed_at": timezone.now().isoformat()}
    assert officer.post(BASE + "SC00001/filing", filing, format="json").status_code == 201
    twice = officer.post(BASE + "SC00001/filing", filing | {"reference": "DS-2026-0043"}, format="json")
    assert twice.status_code == 409
    assert officer.get(BASE + "SC00001/").json()["filing"]["reference"] == "DS-2026-0042"


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("open", {"reason": "r"}, "flag"),
        ("open", {"flag": 1, "patron": "P1", "reason": "r"}, "flag"),
        ("open", {"patron": "NOBODY", "reason": "r"}, "patron"),
        ("open", {"patron": "PATRON", "reason": "   "}, "reason"),
        ("SC00001/transactions", {"positions": []}, "positions"),
        ("SC00001/transactions", {"positions": ["x"]}, "positions"),
        ("SC00001/findings", {"text": ""}, "text"),
        ("SC00001/decision", {"decision": "maybe", "reason": "r"}, "decision"),
        ("SC00001/decision", {"decision": "file", "reason": ""}, "reason"),
        ("SC00001/filing", {"kind": "CTR", "reference": "X", "filed_at": "2026-01-01T00:00:00Z"}, "kind"),
        ("SC00001/filing", {"kind": "SAR-C", "reference": "", "filed_at": "2026-01-01T00:00:00Z"}, "reference"),
        ("SC00001/filing", {"kind": "SAR-C", "reference": "X", "filed_at": "yesterday"}, "filed_at"),
    ],
)
def test_bad_input_is_400_naming_the_field(officer, flagged, path, body, field):
    officer.post(BASE + "open", {"flag": flagged["flag"], "reason": "r"}, format="json")
    if body.get("patron") == "PATRON":
        body = body | {"patron": flagged["patron"]}
    response = officer.post(BASE + path, body, format="json")
    assert response.status_code == 400, response.json()
    assert field in str(response.json())


def test_a_flag_position_that_is_no_aml_flag_and_a_transaction_of_another_patron_are_400(officer, flagged):
    with pytest.raises(InvalidInput, match=f"ledger position {flagged['purchase']} is no AML flag"):
        services.suspicion_case_open(flag=flagged["purchase"], reason="r", actor=OFFICER)
    services.suspicion_case_open(flag=flagged["flag"], reason="r", actor=OFFICER)
    someone_else = make_patron(50_000)
    theirs = Event.objects.get(type="ChipsPurchased", data__patron=someone_else).position
    response = officer.post(BASE + "SC00001/transactions", {"positions": [theirs]}, format="json")
    assert (response.status_code, response.json()["field"]) == (400, "positions")
    assert f"not patron {flagged['patron']}'s" in response.json()["detail"]


def test_a_filing_dated_in_the_future_or_before_its_decision_is_400(officer, flagged):
    services.suspicion_case_open(flag=flagged["flag"], reason="r", actor=OFFICER)
    services.case_findings_write(case="SC00001", text="f", actor=OFFICER)
    services.case_decide(case="SC00001", decision="file", reason="r", actor=OFFICER)
    with pytest.raises(InvalidInput, match="in the future"):
        services.case_filing_record(
            case="SC00001", kind="SAR-C", reference="X", filed_at=timezone.now() + timedelta(hours=1), actor=OFFICER
        )
    with pytest.raises(InvalidInput, match="before the decision to file"):
        services.case_filing_record(
            case="SC00001", kind="SAR-C", reference="X", filed_at=datetime(2020, 1, 1, tzinfo=UTC), actor=OFFICER
        )
    decided = selectors.suspicion_case("SC00001")["decision"]["at"]
    with pytest.raises(InvalidInput, match="before the decision to file") as early:
        services.case_filing_record(
            case="SC00001", kind="SAR-C", reference="X", filed_at=decided - timedelta(seconds=61), actor=OFFICER
        )
    assert early.value.field == "filed_at"
    # The decision's time in the casino's zone, as the case page shows it, never UTC.
    shown = decided.astimezone(ZoneInfo(settings.CASINO_TIMEZONE)).strftime("%Y-%m-%d %H:%M %Z")
    assert f"before the decision to file ({shown})" in str(early.value) and "UTC" not in str(early.value)
    # A form may give the minute only: the minute of the decision is not before it.
    in_its_minute = decided.replace(second=0, microsecond=0)
    filed = services.case_filing_record(
        case="SC00001", kind="SAR-C", reference="X", filed_at=in_its_minute, actor=OFFICER
    )
    assert filed["filing"]["reference"] == "X"


def test_an_unknown_case_is_404(officer, db):
    assert officer.get(BASE + "SC09999/").status_code == 404
    response = officer.post(BASE + "SC09999/findings", {"text": "f"}, format="json")
    assert (response.status_code, response.json()["field"]) == (404, "case")


def test_days_left_count_down_and_a_case_past_its_deadline_is_overdue_until_decided(officer, flagged, settings):
    settings.AML_JURISDICTION = "US"
    services.suspicion_case_open(flag=flagged["flag"], reason="r", actor=OFFICER)
    opened = selectors.suspicion_case("SC00001")["opened_at"]
    in_ten_days = selectors.suspicion_case("SC00001", now=opened + timedelta(days=10))
    assert (in_ten_days["days_left"], in_ten_days["overdue"]) == (20, False)
    late = opened + timedelta(days=31)
    assert (selectors.suspicion_case("SC00001", now=late)["days_left"], selectors.overdue_count(now=late)) == (
        -1,
        (1, 1),
    )
    assert selectors.overdue_count(now=opened + timedelta(days=29)) == (1, 0)
    services.case_findings_write(case="SC00001", text="f", actor=OFFICER)
    services.case_decide(case="SC00001", decision="no_file", reason="explained", actor=OFFICER)
    assert selectors.overdue_count(now=late) == (0, 0)


def test_the_metrics_count_the_cases_waiting_and_overdue(officer, flagged, client):
    services.suspicion_case_open(flag=flagged["flag"], reason="r", actor=OFFICER)
    text = client.get("/metrics").content.decode()
    assert "casino_suspicion_cases_waiting 1.0" in text
    assert "casino_suspicion_cases_overdue 0.0" in text


def test_a_case_record_refuses_update_and_delete(officer, flagged):
    services.suspicion_case_open(flag=flagged["flag"], reason="r", actor=OFFICER)
    for change in (
        lambda rows: rows.update(content={"reason": "nothing"}),
        lambda rows: rows.delete(),
    ):
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            change(CaseRecord.objects.filter(case="SC00001"))
    assert CaseRecord.objects.filter(case="SC00001").count() == 2


@contextmanager
def triggers_lifted():
    """What someone holding the database's owner role could do: change a row around the triggers."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL session_replication_role = replica")
        else:
            cursor.execute("DROP TRIGGER compliance_caserecord_no_update")
    yield
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL session_replication_role = origin")


def test_words_changed_beside_the_ledger_read_as_differing_from_it(officer, flagged):
    services.suspicion_case_open(flag=flagged["flag"], reason="r", actor=OFFICER)
    services.case_findings_write(case="SC00001", text="Bought chips, played none.", actor=OFFICER)
    row = CaseRecord.objects.get(case="SC00001", content__text="Bought chips, played none.")
    with triggers_lifted():
        CaseRecord.objects.filter(pk=row.pk).update(content={"text": "Nothing unusual."})
    case = selectors.suspicion_case("SC00001")
    assert case["differs"] is True
    assert case["findings"] == []
    assert [s["differs"] for s in case["steps"]] == [False, False, True]
    with pytest.raises(StateConflict, match="no findings yet"):
        services.case_decide(case="SC00001", decision="no_file", reason="r", actor=OFFICER)


def test_a_step_retried_with_its_idempotency_key_is_recorded_once(officer, flagged):
    services.suspicion_case_open(flag=flagged["flag"], reason="r", actor=OFFICER)
    headers = {"HTTP_IDEMPOTENCY_KEY": "findings-0001"}
    first = officer.post(BASE + "SC00001/findings", {"text": "f"}, format="json", **headers)
    again = officer.post(BASE + "SC00001/findings", {"text": "f"}, format="json", **headers)
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json()["findings"] == first.json()["findings"]
    assert Event.objects.filter(type="FindingsWritten").count() == 1


def test_the_auditors_read_a_step_as_its_words_kept_apart_never_the_digest(officer, flagged):
    from games.rules.event_words import line

    services.suspicion_case_open(flag=flagged["flag"], reason="r", actor=OFFICER)
    event = Event.objects.get(type="SuspicionCaseOpened")
    assert line(event.type, event.data) == (
        "suspicion case opened: case SC00001, content digest the step's words, kept by compliance (digest not shown)"
    )


def test_a_case_opened_from_a_structuring_flag_keeps_what_it_said_and_attaches_the_exchange(officer, cage, settings):
    from tests.integration.test_aml_visits import past_purchase

    settings.AML_BASIS = "visit"
    patron = make_patron()
    now = timezone.now()
    past_purchase(patron, 180_000, now - timedelta(days=5))
    past_purchase(patron, 185_000, now - timedelta(days=2))
    completing = make_purchase(patron, 195_000)
    (flag,) = [f for f in selectors.aml_flags_without_case() if f["type"] == "AmlStructuringSuspected"]
    words = (
        "suspected structuring: 3 visits in 7 days, each between 80 % and 100 % of the identity threshold "
        "(2,000.00 EUR), cash in"
    )
    assert (flag["position"], flag["patron"], flag["amount_cents"], flag["words"]) == (
        completing,
        patron,
        195_000,
        words,
    )
    case = officer.post(BASE + "open", {"flag": completing, "reason": "three visits just under"}, format="json").json()
    assert (case["patron"], case["flag"]["type"], case["flag"]["words"]) == (patron, "AmlStructuringSuspected", words)
    assert [(t["position"], t["amount_cents"]) for t in case["transactions"]] == [(completing, 195_000)]
    assert [f for f in selectors.aml_flags_without_case() if f["type"] == "AmlStructuringSuspected"] == []


def test_a_flag_whose_transaction_is_attached_to_a_case_opened_by_hand_is_covered(officer, flagged):
    def uncovered() -> set[int]:
        return {flag["position"] for flag in selectors.aml_flags_without_case()}

    assert flagged["flag"] in uncovered()
    case = officer.post(BASE + "open", {"patron": flagged["patron"], "reason": "seen at the cage"}, format="json")
    assert case.status_code == 201, case.json()
    assert flagged["flag"] in uncovered()  # the case covers nothing of his yet

    attached = officer.post(
        BASE + case.json()["case"] + "/transactions", {"positions": [flagged["purchase"]]}, format="json"
    )

    assert attached.status_code == 201, attached.json()
    assert flagged["flag"] not in uncovered()


def test_the_compliance_page_lists_one_gaming_days_flags(flagged, client):
    from django.urls import reverse

    client.force_login(account("officer2", "compliance"))
    day = Event.objects.get(position=flagged["flag"]).gaming_day
    url = reverse("workstations:compliance")

    that_day = client.get(url, {"gaming_day": day.isoformat()}).content.decode()
    another = client.get(url, {"gaming_day": (day - timedelta(days=1)).isoformat()}).content.decode()

    assert f'data-patron="{flagged["patron"]}"' in that_day
    assert f"AML flags no case covers (gaming day {day.isoformat()}: " in that_day
    assert f'data-patron="{flagged["patron"]}"' not in another and "No AML flag waits of this gaming day." in another
    assert client.get(url, {"gaming_day": "12/06"}).status_code == 404


def test_a_case_is_not_in_the_ledgers_list_for_the_cage_or_the_floor(flagged, officer):
    """The patron must not learn of a case: its events are left out of ``/api/events/`` for the
    cage and the floor (even asked by type); the compliance officer and the auditor read them."""
    officer.post(BASE + "open", {"flag": flagged["flag"], "reason": "r"}, format="json")
    wanted = {"type": "SuspicionCaseOpened"}
    for username, role in (("cash1", "cashier"), ("boss1", "pit_boss"), ("sup1", "cage_supervisor")):
        assert client_for(account(username, role)).get("/api/events/", wanted).json()["results"] == [], role
    for reader in (officer, client_for(account("aud1", "auditor"))):
        (opened,) = reader.get("/api/events/", wanted).json()["results"]
        assert opened["stream"] == "suspicion/SC00001"
