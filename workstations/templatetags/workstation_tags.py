"""Display filters of the workstations: money stays in integer cents until here, times in UTC
until here (shown in the casino's zone, with the zone's name)."""

import re
from datetime import datetime
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from django import template
from django.conf import settings
from django.urls import reverse
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe

from basis.money import format_cents, format_denomination
from core.typed_amounts import typed
from dashboard import play
from dashboard.alerts import eur as eur_text
from games.rules.bet_words import bet_spot, chips_words
from games.rules.event_words import card_face, card_text, cards_text, target_words
from ledger import accounts
from staff.roles import has_role

register = template.Library()


@register.filter
def holds(user, role) -> bool:
    """Whether ``user`` holds ``role`` (``cage_supervisor``...): which links his header shows."""
    return has_role(user, role) if getattr(user, "is_authenticated", False) else False


@register.filter
def eur(cents) -> str:
    """``123456`` → ``1,234.56 EUR``; ``None`` → an em dash (the dashboard's formatter)."""
    return "—" if cents is None or cents == "" else eur_text(int(cents))


@register.filter
def as_typed(cents) -> str:
    """Cents as a person types them in a form: ``250000`` → ``2500.00`` (a field's hint)."""
    return "" if cents is None or cents == "" else typed(int(cents))


@register.filter
def foreign(cents, currency) -> str:
    """Hundredths of a foreign currency with its code: ``10000|foreign:"USD"`` → ``100.00 USD``."""
    return "—" if cents is None or cents == "" else format_cents(int(cents), str(currency))


@register.filter
def local(moment) -> str:
    """The one way a moment is shown on the workstations: in the casino's zone
    (``CASINO_TIMEZONE``) with the zone's name, ``2026-12-01 23:45:10 CET``. Takes an aware
    datetime or an ISO 8601 text (as the reports carry times); nothing → an em dash."""
    if not moment:
        return "—"
    if isinstance(moment, str):
        try:
            moment = datetime.fromisoformat(moment.replace("Z", "+00:00"))
        except ValueError:
            return moment
    return moment.astimezone(ZoneInfo(settings.CASINO_TIMEZONE)).strftime("%Y-%m-%d %H:%M:%S %Z")


@register.filter
def negate(cents):
    """``500`` → ``-500``: an amount out of the cage, as its movements are signed."""
    return None if cents is None or cents == "" else -int(cents)


@register.filter
def local_bound(moment) -> str:
    """A gaming day's bound in the casino's zone, hour first: ``06:00 CET 5 Dec``."""
    at = moment.astimezone(ZoneInfo(settings.CASINO_TIMEZONE))
    return f"{at:%H:%M %Z} {at.day} {at:%b}"


@register.filter
def count(number) -> str:
    """A count of things with thousands separated: ``15330`` → ``15,330``."""
    return "—" if number is None or number == "" else f"{int(number):,}"


@register.filter
def events_url(query) -> str:
    """The auditor's event list filtered by ``query`` (a dict of ``audit_selectors.EVENT_FILTERS``)."""
    given = {k: v for k, v in (query or {}).items() if v not in (None, "")}
    return f"{reverse('workstations:audit-events')}?{urlencode(given)}"


# A patron's code as the registry makes it (``patrons.services.patrons``: ``P00024``).
PATRON_CODE = re.compile(r"\b(P\d{5,})\b")


@register.filter(needs_autoescape=True)
def patron_links(text, autoescape=True) -> str:
    """``text`` (escaped) with each patron code in it a link to the event list of that patron
    (``?patron=P00024``): the auditor follows a patron from any line that names him."""
    url = reverse("workstations:audit-events")
    shown = conditional_escape(text) if autoescape else str(text)
    return mark_safe(  # noqa: S308 (the text is escaped above; the codes are letters and digits)
        PATRON_CODE.sub(lambda m: f'<a href="{url}?patron={m.group(1)}" data-link="patron">{m.group(1)}</a>', shown)
    )


@register.filter
def account_label(account) -> str:
    """An account as people read it: ``table:R1:tray`` → ``Table R1 tray``
    (``ledger.accounts.account_label``)."""
    return accounts.account_label(account)


@register.filter
def denomination(cents) -> str:
    """A denomination in currency units: ``50000`` → ``500 EUR``, ``50`` → ``0.50 EUR``."""
    return format_denomination(int(cents))


@register.simple_tag
def currency() -> str:
    """The casino's currency code (``CASINO_CURRENCY``), for labels such as "Amount (EUR)"."""
    return settings.CASINO_CURRENCY


@register.simple_tag
def prefilled(values, prefix, denomination) -> str:
    """The pieces typed earlier in the count input ``<prefix>-<denomination>``, or ``""``."""
    return str((values or {}).get(f"{prefix}-{denomination}", ""))


@register.filter
def event_words(event_type) -> str:
    """An event type in words: ``AmlTransactionLogged`` → ``AML transaction logged``
    (``dashboard.play.event_words``)."""
    return play.event_words(event_type)


# Data keys whose name people say otherwise: the engine counts a box's hands from 0 (its
# ``hand_index``), people from 1 (``hand 1``).
FIELD_WORDS = {"hand_index": "hand", "new_hand_index": "new hand", "index": "card of the shoe"}


@register.filter
def field_label(key) -> str:
    """An event's data key in words: ``day_total_cents`` → ``day total`` (the value is shown
    in currency units, so the unit suffix goes), ``hand_index`` → ``hand``."""
    key = str(key)
    return FIELD_WORDS.get(key, key.removesuffix("_cents").replace("_", " "))


@register.filter
def pick(mapping, key):
    """``mapping[key]`` (None when missing), for a column chosen by name."""
    return (mapping or {}).get(key)


@register.filter
def local_iso(text) -> str:
    """An ISO 8601 UTC time (as the reports carry it) in the casino's zone: ``local``."""
    return local(text)


# Event data keys holding a count by denomination ``{"<cents>": pieces}`` (``core.denominations``):
# a cage shift's ``cash`` and ``chips``, a slip's or a drop count's ``denominations``, a table's
# counted ``opener`` and ``closer``, a delivered slip's ``counted``.
COUNT_KEYS = frozenset({"cash", "chips", "denominations", "opener", "closer", "counted", "recounted"})
# A hex digest or an id (UUID): a reference to look up, shown small, never a label.
REFERENCE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{16,}")
FRACTION = re.compile(r"(\d+)/(\d+)")


def _is_count(value) -> bool:
    return (
        isinstance(value, dict)
        and bool(value)
        and all(isinstance(k, str) and k.isascii() and k.isdigit() for k in value)
        and all(type(n) is int for n in value.values())
    )


def count_words(count: dict) -> str:
    """A count by denomination ``{"<cents>": pieces}`` in currency units, smallest first, with
    its total: ``{"50000": 2, "100": 1}`` → ``1 × 1 EUR, 2 × 500 EUR (total 1,001.00 EUR)``."""
    lines = sorted((int(d), n) for d, n in count.items())
    total = sum(d * n for d, n in lines)
    return ", ".join(f"{n} × {denomination(d)}" for d, n in lines) + f" (total {eur_text(total)})"


@register.filter
def is_reference(value, key) -> bool:
    """Whether data ``key``'s value is an id or a digest (``REFERENCE``) the page shows small,
    as a reference: not one that has words of its own (a digest a page never shows:
    ``dashboard.play.code_words``)."""
    return (
        isinstance(value, str) and REFERENCE.fullmatch(value) is not None and play.code_words(str(key), value) is None
    )


def _amount_text(value: str) -> str:
    """An amount the event keeps as text (an exact fraction of cents: ``"421/2"``)."""
    if value.isascii() and value.isdigit():
        return eur_text(int(value))
    if match := FRACTION.fullmatch(value):
        return f"about {eur_text(round(int(match[1]) / int(match[2])))}"
    return value


def _index(key, value) -> bool:
    return str(key).endswith("hand_index") and type(value) is int


@register.filter
def data_value(value, key) -> str:
    """An event's data value in words: amounts (keys ending ``_cents``) and counts by
    denomination (``COUNT_KEYS``: ``{"50000": 2}`` → ``2 × 500 EUR (total 1,000.00 EUR)``) in
    currency units, known codes in words (``dashboard.play.code_words``: ``cage_purchase`` →
    ``chips bought at the cage``, ``pit_boss`` → ``pit boss``), cards as people write them
    (``AD`` → ``A♦``), a card's target as ``player's box 2, hand 1``, a box's hand counted from
    1, a bet's ``position`` and ``chips`` as the table names them, an edge as a percentage,
    accounts by their labels (``ledger.accounts.account_label``), nested objects as ``name:
    value`` pairs (an object's class name left out), lists joined, never a Python repr."""
    key = str(key)
    money = key.endswith("_cents")
    if (said := play.code_words(key, value)) is not None:
        return said
    if key == "position" and isinstance(value, dict):
        return bet_spot(value)
    if key == "to" and isinstance(value, dict):
        return target_words(value)
    if key == "chips" and type(value) in (str, int):
        return chips_words(value)
    if key in COUNT_KEYS and _is_count(value):  # "1 × 0.05 EUR, …, 111 × 500 EUR", as the cage's queue
        return count_words(value)
    if key == "shares" and isinstance(value, list) and all(isinstance(s, list) and len(s) == 2 for s in value):
        return ", ".join(f"seat {seat}: {eur_text(cents)}" for seat, cents in value if type(cents) is int) or "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) and money:
        return eur_text(value)
    if _index(key, value):
        return str(value + 1)
    if isinstance(value, str) and money:
        return _amount_text(value)
    if isinstance(value, str) and "edge" in key and (match := FRACTION.fullmatch(value)) and int(match[2]):
        return f"{100 * int(match[1]) / int(match[2]):.3f}%"
    if isinstance(value, str) and card_face(value) and ("card" in key or key in CARD_KEYS):
        return card_text(value)
    if isinstance(value, dict):
        shown = {k: v for k, v in value.items() if not (k == "type" and isinstance(v, str) and v[:1].isupper())}
        return (
            "; ".join(
                f"{_key_words(k)}: {data_value(v, f'{k}_cents' if money and not str(k).endswith('_cents') else k)}"
                for k, v in shown.items()
            )
            or "—"
        )
    if isinstance(value, list):
        if value and all(card_face(v) for v in value):
            return cards_text(value)
        return ", ".join(data_value(v, key) for v in value) or "—"
    if value is None or value == "":
        return "—"
    return play.code_text(value, key) if isinstance(value, str) else str(value)


# Keys of event data whose single value is a card code (``AD``): the others with ``card`` in their name.
CARD_KEYS = frozenset({"showing", "upcard", "hole"})


def _key_words(key) -> str:
    """A nested key in words: an account by its label (``cage:cash`` → ``Cage cash``), another
    as ``field_label``."""
    key = str(key)
    return accounts.account_label(key) if ":" in key else field_label(key)
