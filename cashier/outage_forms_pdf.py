"""The outage's paper forms as a PDF (WeasyPrint, as the registers): one page a table, one for
the cage.

Printed ahead (``blank_forms_pdf``: every table of the floor and the cage, serial and outage
left blank, to keep in the pit and the cage), or for a declared outage (``outage_forms_pdf``:
its forms with their serials, the outage and its window). Each page is headed with its
table's or the cage's name, which is also the PDF's outline entry: the file is written
uncompressed (a few pages of ruled lines), so its outline names each form as plain text.
"""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from django.conf import settings
from django.template.loader import render_to_string

from games.catalog import spec
from games.models import Table
from games.names import game_name
from ledger import outage_forms

LINES_A_PAGE = 22
LAYOUT_COLUMNS = ["Time", "Coup", "Patron (card)", "Bet (position)", "Stake", "Chips (value / colour)",
                  "Winning number", "Paid", "Dealer"]  # fmt: skip
CARD_COLUMNS = ["Time", "Coup", "Patron (card)", "Box / bet", "Stake", "Result", "Paid", "Dealer"]
CAGE_COLUMNS = ["Time", "Transaction (purchase, redemption, fill, credit)", "Patron (card)", "Cash", "Chips",
                "Slip serial", "Cashier"]  # fmt: skip
# A table's page also rules the chips that come and go beside play: fills, credits and cash
# buy-ins, each with who signed it (``cashier.services.outage.paper_slip_enter``, ``paper_buy_in_enter``).
TABLE_COUP_LINES = 13
SLIP_LINES = 5
SLIP_COLUMNS = ["Time", "Fill / credit / cash buy-in", "Chips: pieces × value", "Total", "Patron (buy-in)",
                "Requested (pit boss)", "Issued (cashier)", "Runner", "Accepted (dealer; credit: cashier)"]  # fmt: skip


def _table_form(code: str, game: str | None, serial: str = "") -> dict:
    layout = game is not None and spec(game).layout_bets
    return {
        "heading": f"Table {code}" + (f" ({game_name(game)})" if game else ""),
        "serial": serial,
        "place_words": f"table {code}",
        "line_words": "bet, with its coup's winning number" if layout else "bet and its result",
        "columns": LAYOUT_COLUMNS if layout else CARD_COLUMNS,
        "first_signer": "Dealer",
        "lines": range(1, TABLE_COUP_LINES + 1),
        "slips": {"columns": SLIP_COLUMNS, "lines": range(1, SLIP_LINES + 1)},
    }


def _cage_form(serial: str = "") -> dict:
    return {
        "heading": "Cage",
        "serial": serial,
        "place_words": "the cage",
        "line_words": "transaction",
        "columns": CAGE_COLUMNS,
        "first_signer": "Cashier",
        "lines": range(1, LINES_A_PAGE + 1),
    }


def _local(moment: datetime | None) -> str:
    if moment is None:
        return ""
    return moment.astimezone(ZoneInfo(settings.CASINO_TIMEZONE)).strftime("%Y-%m-%d %H:%M %Z")


def _pdf(title: str, forms: list[dict], outage: dict | None) -> bytes:
    from weasyprint import HTML  # imported here: its system libraries load on first use

    html = render_to_string(
        "cashier/outage_forms_pdf.html",
        {
            "title": title,
            "forms": forms,
            "outage": outage,
            "casino": getattr(settings, "CASINO_NAME", "Casino"),
            "zone": settings.CASINO_TIMEZONE,
            "currency": getattr(settings, "CASINO_CURRENCY", "EUR"),
            "printed": _local(datetime.now(UTC)),
        },
    )
    return HTML(string=html).write_pdf(uncompressed_pdf=True)


def blank_forms_pdf() -> bytes:
    """Blank forms printed ahead: one for every table of the floor, then the cage's."""
    tables = Table.objects.order_by("code").values_list("code", "game")
    forms = [_table_form(code, game) for code, game in tables] + [_cage_form()]
    return _pdf("Outage forms, printed ahead", forms, None)


def outage_forms_pdf(found: outage_forms.Outage) -> bytes:
    """The forms of outage ``found``, each with its serial."""
    games = dict(Table.objects.values_list("code", "game"))
    forms = [
        _table_form(each["table"], games.get(each["table"]), each["form"])
        if each["place"] == "table"
        else _cage_form(each["form"])
        for each in found.forms
    ]
    window = {"id": found.id, "start_local": _local(found.started_at), "end_local": _local(found.ended_at)}
    return _pdf(f"Outage {found.id}: paper forms", forms, window)
