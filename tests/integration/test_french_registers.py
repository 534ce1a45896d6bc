"""The French registers (models 10, 11 bis, 12, 13, 16, 22 and the change register) come from the
ledger: a scripted day is checked line by line, a correction stands as a compensating line, the
PBJ of each table agrees with the count room's win (or the difference is explained), and every
file the ``registers`` command writes verifies with openssl and the site's public key."""

import csv
import io
import shutil
import subprocess
import zipfile

import pytest
from django.core.management import call_command

from cashier import reports, tronc_reports
from cashier.registers import books
from cashier.registers.files import csv_bytes, file_name, html
from cashier.services.cage import chips_purchase, chips_redeem
from cashier.services.cage_corrections import cage_transaction_reverse
from cashier.services.count_room import drop_box_remove, drop_count, drop_count_reverse
from cashier.services.slips import slip_accept, slip_issue, slip_request, slip_reverse
from games.services.tables import table_buy_in, table_close, table_open
from ledger import signing
from ledger.gaming_day import current_gaming_day
from staff.roles import grant

from ..conftest import ACTOR, CAGE_STAFF, hand_cage_to

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(django_user_model):
    for name, role in CAGE_STAFF.items():
        grant(django_user_model.objects.create_user(username=name, password="x"), role)
    hand_cage_to("cash1")
    return CAGE_STAFF


def _slip(kind: str, denominations: dict) -> str:
    serial = slip_request(kind=kind, table="R1", denominations=denominations, actor="pit1")["serial"]
    slip_issue(kind=kind, serial=serial, runner="run1", actor="cash1")
    accepter = "cash1" if kind == "credit" else "pit2"
    slip_accept(kind=kind, serial=serial, actor=accepter, count=denominations)
    return serial


@pytest.fixture
def scripted_day(table, staff, patron):
    """R1 opened with 50,000 EUR; 700 EUR of buy-ins; fills of 3,000 and 2,000 EUR (the second
    reversed); a credit of 10,000 EUR; closed at the book; the box counted 10 EUR short."""
    day = current_gaming_day()
    table_buy_in(code="R1", patron=patron, amount_cents=50_000, actor=ACTOR)
    table_buy_in(code="R1", patron=patron, amount_cents=20_000, actor=ACTOR)
    _slip("fill", {"10000": 30})
    wrong = _slip("fill", {"10000": 20})
    slip_reverse(kind="fill", serial=wrong, reason="wrong table", approver="super1", actor="pit1")
    _slip("credit", {"1000000": 1})
    table_close(code="R1", actor=ACTOR)
    drop_box_remove(table="R1", gaming_day=day.isoformat(), actor="drop1", removers=["drop1", "drop2"])
    drop_count(
        table="R1",
        gaming_day=day.isoformat(),
        cash={"10000": 6, "5000": 1, "1000": 4},
        counters=["count1", "count2"],
        actor="count2",
    )
    return day


def _money(line, *keys):
    return tuple(getattr(line, key) for key in keys)


ADVANCE = (
    "avance_initiale_cents",
    "avances_complementaires_cents",
    "plaques_jetons_fin_cents",
    "retraits_cents",
    "caisse_cents",
    "encaisse_fin_cents",
    "pbj_cents",
)


def test_the_carnet_d_avances_shows_the_seance_then_each_correction_as_a_compensating_line(scripted_day):
    lines = books.table_advances("R1", scripted_day)
    figures = reports.table_figures("R1", scripted_day, scripted_day)
    seance, reversal, count = lines
    assert (seance.line, seance.seance, seance.game) == ("séance", 1, "English roulette")
    closer = figures["closer_cents"]
    # Both fills as delivered (5,000 EUR): the reversal does not erase the second one.
    assert _money(seance, *ADVANCE) == (
        5_000_000,
        500_000,
        closer,
        1_000_000,
        70_000,
        closer + 1_000_000 + 70_000,
        closer + 1_000_000 + 70_000 - 5_000_000 - 500_000,
    )
    assert (reversal.line, reversal.label) == ("rectification", "Annulation d'une avance complémentaire")
    assert _money(reversal, *ADVANCE) == (0, -200_000, 0, 0, 0, 0, 200_000)
    assert reversal.compense.startswith("événement ")
    assert (count.label, _money(count, "caisse_cents", "encaisse_fin_cents", "pbj_cents")) == (
        "Comptée de la caisse: écart sur les billets enregistrés",
        (-1_000, -1_000, -1_000),
    )
    # The register adds up to the count room's figures of the day.
    assert sum(line.avances_complementaires_cents for line in lines) == figures["fills_cents"] == 300_000
    assert sum(line.caisse_cents for line in lines) == figures["drop_cents"] == 69_000
    assert sum(line.pbj_cents for line in lines) == figures["win_cents"]


def test_the_registre_de_controle_puts_the_pbj_beside_the_drop_and_win_and_they_agree(scripted_day):
    table, total = books.control_lines(scripted_day)
    figures = reports.table_figures("R1", scripted_day, scripted_day)
    assert (table.table, table.seances, table.drop_cents, table.win_cents) == (
        "R1",
        1,
        figures["drop_cents"],
        figures["win_cents"],
    )
    assert (table.rectifications_cents, table.pbj_cents, table.ecart_cents, table.explication) == (
        200_000 - 1_000,
        figures["win_cents"],
        0,
        "aucun",
    )
    assert (total.table, total.pbj_cents, total.ecart_cents) == ("Total", table.pbj_cents, 0)


def test_the_levy_book_carries_a_losing_day_forward_instead_of_taxing_it(scripted_day):
    (line,) = books.levy_lines(scripted_day)
    # The séance lost 2,000 EUR (the fill later reversed counted as advanced); the reversal
    # (+2,000 EUR) and the short box (−10 EUR) bring the day to −10 EUR.
    assert (line.day, line.pbj_seances_cents, line.rectifications_cents, line.pbj_jour_cents) == (
        scripted_day,
        -200_000,
        199_000,
        -1_000,
    )
    assert (line.perte_reportee_cents, line.base_cents, line.perte_a_reporter_cents, line.cumul_saison_cents) == (
        0,
        0,
        1_000,
        -1_000,
    )
    assert line.prelevements == books.NO_RATES


def test_a_drop_count_reversed_and_recounted_is_two_more_compensating_lines(scripted_day):
    day = scripted_day.isoformat()
    drop_count_reverse(table="R1", gaming_day=day, reason="miscount", approver="pit1", actor="count1")
    drop_count(table="R1", gaming_day=day, cash={"10000": 7}, counters=["count2", "count1"], actor="count1")
    lines = books.table_advances("R1", scripted_day)
    counts = [line for line in lines if "comptée" in line.label.lower()]
    assert [(line.label, line.caisse_cents) for line in counts] == [
        ("Comptée de la caisse: écart sur les billets enregistrés", -1_000),
        ("Annulation d'une comptée de la caisse", 1_000),
        ("Comptée de la caisse: écart sur les billets enregistrés", 0),
    ]
    assert counts[1].compense == f"événement {counts[0].events}"
    assert sum(line.pbj_cents for line in lines) == reports.table_figures("R1", scripted_day, scripted_day)["win_cents"]


def test_a_table_closed_and_opened_again_explains_the_difference_with_the_win(table, staff):
    day = current_gaming_day()
    table_close(code="R1", closer={"1000000": 5}, dealer="dealer1", pit_boss="pit1", actor="pit1")
    table_open(
        code="R1",
        game="english_roulette",
        opener={"1000000": 4, "500000": 1, "100000": 4},
        dealer="dealer1",
        pit_boss="pit2",
        actor="pit2",
        variance_reason="a 1,000.00 EUR plaque missing from the tray",
    )
    table_close(code="R1", actor=ACTOR)
    line, _ = books.control_lines(day)
    win = reports.table_figures("R1", day, day)["win_cents"]
    assert (line.seances, line.win_cents, line.pbj_cents, line.ecart_cents) == (2, win, win + 100_000, -100_000)
    assert "réouverture" in line.explication and "écart non expliqué" not in line.explication


def test_the_change_register_lists_each_desk_with_its_reversal_and_its_totals(cage, staff, patron):
    day = current_gaming_day()
    sale = chips_purchase(patron=patron, amount_cents=30_000, actor="cash1")
    chips_redeem(patron=patron, amount_cents=10_000, actor="cash1")
    cage_transaction_reverse(event=sale["event"], reason="keyed twice", approver="super1", actor="cash1")
    lines = [line for line in books.change_lines(day) if line.desk != books.MAIN_BANK or line.patron == patron]
    mine = [line for line in lines if line.patron == patron]
    assert [(line.operation, line.especes_recues_cents, line.jetons_recus_cents) for line in mine[-3:]] == [
        ("Vente de plaques et jetons", 30_000, 0),
        ("Rachat de plaques et jetons (change inverse)", 0, 10_000),
        ("Annulation d'une vente", -30_000, 0),
    ]
    assert mine[-1].compense == f"événement {sale['event']}"
    totals = [line for line in books.change_lines(day) if line.operation == books.TOTAL]
    moved = reports.cage_accountability_report(day)["rows"][-1]
    assert sum(t.especes_recues_cents for t in totals) == moved["chip_sales_cents"] + moved["reversals_cash_cents"]
    assert sum(t.jetons_recus_cents for t in totals) == -moved["redemptions_cents"]
    # The PDF reads amounts as a French register does; the CSV keeps the machine's figures.
    page = html(books.change_register(day))
    assert '<td class="money">-300,00</td>' in page and '<td class="money">-300.00</td>' not in page
    assert "-300.00" in csv_bytes(books.change_register(day)).decode()


def test_a_register_without_entry_says_neant_and_why(cage):
    register = books.model_11_bis(current_gaming_day())
    assert register.rows == ()
    rows = list(csv.reader(io.StringIO(csv_bytes(register).decode())))
    assert rows[-1] == ["Néant", books.NO_ORPHAN_EVENT]


def _openssl(folder, name):
    return subprocess.run(
        [
            "openssl",
            "pkeyutl",
            "-verify",
            "-pubin",
            "-inkey",
            str(folder / "public-key.pem"),
            "-rawin",
            "-in",
            str(folder / name),
            "-sigfile",
            str(folder / f"{name}.sig"),
        ],
        capture_output=True,
        text=True,
    )


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed")
def test_every_register_file_verifies_with_openssl_and_a_changed_byte_does_not(scripted_day, tmp_path, settings):
    key_file = tmp_path / "site.pem"
    key_file.write_bytes(signing.new_private_key_pem())
    settings.LEDGER_SIGNING_KEY_FILE = str(key_file)
    out = tmp_path / "registers"
    call_command("registers", scripted_day.isoformat(), str(out), stdout=io.StringIO())
    names = [file_name(slug, scripted_day, fmt) for slug in books.BUILDERS for fmt in ("csv", "pdf")]
    assert sorted(p.name for p in out.iterdir() if not p.name.endswith(".sig")) == sorted([*names, "public-key.pem"])
    for name in [*names, "public-key.pem"]:
        done = _openssl(out, name)
        assert (done.returncode, done.stdout.strip()) == (0, "Signature Verified Successfully"), name
    assert (out / file_name("modele-10", scripted_day, "pdf")).read_bytes().startswith(b"%PDF")
    rows = list(csv.reader(io.StringIO((out / file_name("modele-12", scripted_day, "csv")).read_text())))
    assert rows[0][:3] == ["Table", "Jeu", "Séances"] and rows[1][:3] == ["R1", "English roulette", "1"]
    data = bytearray((out / file_name("modele-12", scripted_day, "csv")).read_bytes())
    data[-3] = ord("9") if data[-3] != ord("9") else ord("8")
    (out / file_name("modele-12", scripted_day, "csv")).write_bytes(bytes(data))
    assert _openssl(out, file_name("modele-12", scripted_day, "csv")).returncode != 0


def test_the_auditors_day_page_links_each_register_and_the_signed_zip_once_the_day_is_sealed(
    client, scripted_day, django_user_model
):
    from ledger.seal import seal_gaming_day
    from staff.roles import Role

    auditor = django_user_model.objects.create_user(username="aud1", password="x")
    grant(auditor, Role.AUDITOR)
    client.force_login(auditor)
    day = scripted_day.isoformat()
    # A day not sealed may still change: no signed register of it, as no export.
    unsealed = client.get(f"/workstations/audit/days/{day}/register", {"name": "modele-10", "format": "csv.sig"})
    assert unsealed.status_code == 409 and "No signed register yet" in unsealed.content.decode()
    assert client.get(f"/workstations/audit/days/{day}/registers.zip").status_code == 409
    seal_gaming_day(day=scripted_day, actor="aud1")
    page = client.get(f"/workstations/audit/days/{day}/").content.decode()
    for slug in books.BUILDERS:
        assert f"/workstations/audit/days/{day}/register?name={slug}&amp;format=csv" in page
        assert f"/workstations/audit/days/{day}/register?name={slug}&amp;format=pdf" in page
    url = f"/workstations/audit/days/{day}/register"
    got = client.get(url, {"name": "modele-10", "format": "csv"})
    assert got.status_code == 200 and got.content == csv_bytes(books.model_10(scripted_day))
    signature = client.get(url, {"name": "modele-10", "format": "csv.sig"}).content
    public = signing.signing_key()
    assert len(signature) == 64 and public.sign_raw(got.content) == signature
    assert client.get(url, {"name": "modele-99", "format": "csv"}).status_code == 404
    assert client.get(url, {"name": "modele-10", "format": "pdf.sig"}).status_code == 404
    archive = zipfile.ZipFile(io.BytesIO(client.get(f"/workstations/audit/days/{day}/registers.zip").content))
    assert "public-key.pem" in archive.namelist() and f"modele-13-{day}.pdf.sig" in archive.namelist()


def test_tips_and_chips_registers_read_the_tronc_and_the_cage_book(scripted_day):
    tips = books.tips_lines(scripted_day)
    book = tronc_reports.tips_book(scripted_day)
    assert sum(line.montant_cents for line in tips if line.nature == "Comptage du tronc") == sum(
        row["total_cents"] for row in book["rows"]
    )
    chips = books.chips_lines(scripted_day)
    end = next(line for line in chips if line.designation == "Stock en fin de journée (caisse)")
    assert end.stock_cents == reports.cage_accountability_report(scripted_day)["book"]["cage_chips_cents"]


def test_a_played_demo_day_gives_each_table_a_pbj_that_agrees_with_its_drop_and_win():
    from .demo_days import play_small_demo_day

    play_small_demo_day()
    day = current_gaming_day()
    control = books.control_lines(day)
    tables = [line for line in control if line.table != books.TOTAL]
    assert [line.table for line in tables] == [t.code for t in reports.tables_active(day, day)]
    for line in tables:
        figures = reports.table_figures(line.table, day, day)
        advances = books.table_advances(line.table, day)
        assert (line.drop_cents, line.win_cents) == (figures["drop_cents"], figures["win_cents"]), line.table
        assert line.pbj_cents == sum(a.pbj_cents for a in advances), line.table
        assert sum(a.caisse_cents for a in advances) == figures["drop_cents"], line.table
        assert sum(a.avances_complementaires_cents for a in advances) == figures["fills_cents"], line.table
        assert sum(a.retraits_cents for a in advances) == figures["credits_cents"], line.table
        # Agreement, or each difference explained by a table reopened in the day.
        assert line.ecart_cents == line.win_cents - line.pbj_cents
        assert (line.ecart_cents == 0 and line.explication == "aucun") or "réouverture" in line.explication
        assert "non expliqué" not in line.explication
    total = control[-1]
    assert total.win_cents == sum(line.win_cents for line in tables)
    # The levy book carries the day's PBJ; the tips book and the change register read the same ledger.
    levy = books.levy_lines(day)[-1]
    assert (levy.day, levy.pbj_jour_cents) == (day, total.pbj_cents)
    counted = sum(line.montant_cents for line in books.tips_lines(day) if line.nature == "Comptage du tronc")
    assert counted == tronc_reports.tips_book(day)["totals"]["day"]["counted_cents"] > 0
    moved = reports.cage_accountability_report(day)["rows"][-1]
    totals = [line for line in books.change_lines(day) if line.operation == books.TOTAL]
    assert sum(t.especes_recues_cents for t in totals) == moved["chip_sales_cents"] + moved["reversals_cash_cents"]
