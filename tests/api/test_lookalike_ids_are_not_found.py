"""An id written with look-alike digits names nothing.

``uuid.UUID`` (and so Django's UUID field) reads any Unicode digit: a shoe id written in
Arabic-Indic digits ("٤" for 4) or fullwidth ones ("４") found the shoe, while the dealer's
permission, reading the id strictly, found no table to refuse. A dealer assigned to B1 closed
B2's shoe (and got its card order); a device bound to B1 did the same; reads showed another
table's coups. Every id in a path is now read in ASCII first (``core.converters``): a
look-alike is 404 and changes nothing; in a body it is 400 naming the field.
"""

from urllib.parse import quote

import pytest
from rest_framework.test import APIClient

from games.models import Shoe
from games.services.rounds import round_open
from games.services.shoes import shoe_start
from games.services.tables import table_open
from ledger import store
from staff.services import dealer_assign, device_token_issue
from tests.conftest import ACTOR, make_patron, staff_user

pytestmark = pytest.mark.django_db

ARABIC_INDIC = {str(d): chr(0x0660 + d) for d in range(10)}
FULLWIDTH = {str(d): chr(0xFF10 + d) for d in range(10)}


def lookalike(uid: str, digits: dict[str, str]) -> str:
    """``uid`` with every ASCII digit replaced (a version-4 UUID always has one: the "4")."""
    written = "".join(digits.get(c, c) for c in uid)
    assert written != uid
    return quote(written)


@pytest.fixture
def pit(cage):
    """Black jack tables B1 and B2, each with a shoe in play; dealer7 assigned to B1."""
    for code in ("B1", "B2"):
        table_open(code=code, game="blackjack", opener_cents=1_000_000, actor=ACTOR, rules={})
    staff_user("pit1", "pit_boss")
    dealer = staff_user("dealer7", "dealer")
    dealer_assign(dealer="dealer7", table="B1", actor="pit1")
    shoes = {code: shoe_start(table=code, actor=ACTOR)["shoe"] for code in ("B1", "B2")}
    client = APIClient()
    client.force_authenticate(dealer)
    return {"dealer": client, "shoes": shoes}


def test_a_dealer_cannot_close_another_tables_shoe_by_writing_its_id_in_arabic_indic_digits(pit):
    other = pit["shoes"]["B2"]
    assert pit["dealer"].post(f"/api/shoes/{other}/close", {}, format="json").status_code == 403
    before = store.head()
    response = pit["dealer"].post(f"/api/shoes/{lookalike(other, ARABIC_INDIC)}/close", {}, format="json")
    assert response.status_code == 404, response.content[:300]
    assert response.json()["error"] == "not_found"
    assert "order" not in response.json()
    assert Shoe.objects.get(pk=other).state == Shoe.State.IN_PLAY
    assert store.head() == before


def test_a_device_cannot_close_another_tables_shoe_by_writing_its_id_in_fullwidth_digits(pit):
    token = device_token_issue(name="terminal-B1", kind="terminal", table="B1", actor="pit1")["token"]
    device = APIClient()
    device.credentials(HTTP_AUTHORIZATION=f"Device {token}")
    other = pit["shoes"]["B2"]
    assert device.post(f"/api/shoes/{other}/close", {}, format="json").status_code == 403
    before = store.head()
    response = device.post(f"/api/shoes/{lookalike(other, FULLWIDTH)}/close", {}, format="json")
    assert response.status_code == 404, response.content[:300]
    assert Shoe.objects.get(pk=other).state == Shoe.State.IN_PLAY
    assert store.head() == before


@pytest.mark.parametrize("digits", [ARABIC_INDIC, FULLWIDTH], ids=["arabic-indic", "fullwidth"])
def test_reads_of_another_tables_round_and_shoe_with_lookalike_ids_are_404(pit, digits):
    coup = round_open(table="B2", actor=ACTOR)["round"]
    dealer = pit["dealer"]
    assert dealer.get(f"/api/rounds/{coup}/").status_code == 403
    for path in (
        f"/api/rounds/{lookalike(coup, digits)}/",
        f"/api/rounds/{lookalike(coup, digits)}/stud-hand",
        f"/api/shoes/{lookalike(pit['shoes']['B2'], digits)}/",
        f"/api/shoes/{lookalike(pit['shoes']['B2'], digits)}/history",
    ):
        response = dealer.get(path)
        assert response.status_code == 404, (path, response.content[:300])


def test_a_lookalike_table_code_in_a_path_is_404(pit):
    pit_boss = APIClient()
    pit_boss.force_authenticate(staff_user("pit2", "pit_boss"))
    before = store.head()
    response = pit_boss.post(f"/api/tables/{quote('B' + FULLWIDTH['2'])}/closer", {}, format="json")
    assert response.status_code == 404
    assert store.head() == before


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/cage/purchases", {"patron": "P" + FULLWIDTH["0"] * 4 + "1", "amount_cents": 100}, "patron"),
        ("/api/tables/B1/buy-ins", {"patron": "P0000" + ARABIC_INDIC["1"], "amount_cents": 100}, "patron"),
        ("/api/tables/B1/buy-ins", {"patron": " P00001", "amount_cents": 100}, "patron"),
        ("/api/staff/assignments", {"dealer": "dealer" + FULLWIDTH["7"], "table": "B2"}, "dealer"),
        ("/api/staff/assignments", {"dealer": "dealer7", "table": "B" + ARABIC_INDIC["2"]}, "table"),
    ],
)
def test_a_lookalike_id_in_a_body_is_400_naming_the_field(pit, path, body, field):
    make_patron(10_000)  # P00001 exists: the look-alike must not reach it
    client = APIClient()
    client.force_authenticate(staff_user("desk", "pit_boss", "cashier"))
    before = store.head()
    response = client.post(path, body, format="json")
    assert response.status_code == 400, response.content[:300]
    assert response.json()["field"] == field
    assert store.head() == before


def test_an_upper_case_ascii_id_still_names_its_shoe(pit):
    mine = pit["shoes"]["B1"]
    response = pit["dealer"].get(f"/api/shoes/{mine.upper()}/")
    assert response.status_code == 200 and response.json()["id"] == mine


def test_every_path_parameter_goes_through_a_strict_ascii_converter():
    """The guard for new routes: no ``<str:...>`` (nor ``int``, ``slug``, ``path``) outside
    Django's admin; each id or code is one of ``core.converters``."""
    from django.urls import URLPattern, URLResolver, get_resolver

    from core import converters

    strict = (
        converters.IdConverter,
        converters.CodeConverter,
        converters.NameConverter,
        converters.SerialConverter,
        converters.DayConverter,
        converters.PositionConverter,
    )
    loose: list[str] = []

    def walk(patterns, prefix: str) -> None:
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            for name, converter in getattr(pattern.pattern, "converters", {}).items():
                if not isinstance(converter, strict):
                    loose.append(f"{route} <{name}>")
            if isinstance(pattern, URLResolver) and pattern.namespace != "admin":
                walk(pattern.url_patterns, route)
            assert isinstance(pattern, (URLPattern, URLResolver))

    walk(get_resolver().url_patterns, "/")
    assert not loose, loose
