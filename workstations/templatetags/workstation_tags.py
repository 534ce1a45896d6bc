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

from basis.money import format_denomination
from dashboard import play
from dashboard.alerts import eur as eur_text
from games.rules.bet_words import bet_spot, chips_words
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


@register.filter
def field_label(key) -> str:
    """An event's data key in words: ``day_total_cents`` → ``day total`` (the value is shown
    in currency units, so the unit suffix goes)."""
    return str(key).removesuffix("_cents").replace("_", " ")


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
# counted ``opener`` and ``closer``.
COUNT_KEYS = frozenset({"cash", "chips", "denominations", "opener", "closer"})


def _is_count(value) -> bool:
    return (
        isinstance(value, dict)
        and bool(value)
        and all(isinstance(k, str) and k.isascii() and k.isdigit() for k in value)
        and all(type(n) is int for n in value.values())
    )


@register.filter
def data_value(value, key) -> str:
    """An event's data value in words: amounts (keys ending ``_cents``) and counts by
    denomination (``COUNT_KEYS``: ``{"50000": 2}`` → ``2 × 500 EUR``) in currency units, known
    codes in words (``dashboard.play.code_words``: ``cage_purchase`` → ``chips bought at the
    cage``), a bet's ``position`` and ``chips`` as the table names them, nested objects as ``name: value``
    pairs, lists joined, never a Python repr."""
    money = str(key).endswith("_cents")
    if (said := play.code_words(str(key), value)) is not None:
        return said
    if key == "position" and isinstance(value, dict):
        return bet_spot(value)
    if key == "chips" and type(value) in (str, int):
        return chips_words(value)
    if key in COUNT_KEYS and _is_count(value):  # "1 × 0.05 EUR, …, 111 × 500 EUR", as the cage's queue
        lines = sorted((int(d), n) for d, n in value.items())
        return ", ".join(f"{n} × {denomination(d)}" for d, n in lines)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) and money:
        return eur_text(value)
    if isinstance(value, dict):
        return (
            "; ".join(f"{field_label(k)}: {data_value(v, f'{k}_cents' if money else k)}" for k, v in value.items())
            or "—"
        )
    if isinstance(value, list):
        return ", ".join(data_value(v, key) for v in value) or "—"
    if value is None or value == "":
        return "—"
    return str(value)
