"""What a person types in a form, read into the services' arguments: amounts in currency units
→ integer cents, counts by denomination. One reading for the cage's and the pit boss's forms."""

from __future__ import annotations

import re
from decimal import Decimal

from basis.money import format_cents
from ledger.errors import InvalidInput

# How to type an amount, said with every refusal of one.
HOW = (
    "type cents after a comma or a point, two digits at most (12,50 or 12.50), and thousands "
    "with a space or nothing (1 000,50 or 1000.50)"
)
_DIGITS = re.compile(r"[0-9]+")
_SPACES = re.compile(r"[ \u00a0\u202f]")  # a space, a no-break space, a narrow no-break space


def amount_cents(text: object, field: str = "amount", *, zero: bool = False) -> int:
    """An amount a person typed in currency units → integer cents: ``"12,5"`` / ``"12.50"`` →
    1250, ``"1 000,50"`` / ``"1,000.50"`` / ``"1.000,50"`` → 100050, ``"1500"`` → 150000.

    A comma or a point followed by one or two digits is the decimal mark (a French cashier's
    "12,5" is 12.50, not 125). Thousands are grouped by three with a space, or with the other
    mark when both appear. ``InvalidInput`` naming ``field``, in words saying how to type it, for
    anything else: an ambiguous ``"1,000"`` or ``"1.000"`` (a thousand, or one?) is refused,
    never guessed; so are three decimals, a sign, letters, zero (unless ``zero``: a limit that
    closes a line). Decimal only, never float."""
    raw = _SPACES.sub(" ", text.strip()) if isinstance(text, str) else ""
    if not raw:
        raise InvalidInput(f"an amount in currency units is needed: {HOW}", field=field)
    marks = [c for c in raw if c in ",."]
    units, cents = raw, ""
    if raw[-1] in ",.":
        raise InvalidInput(f'"{text.strip()}" is not an amount: {HOW}', field=field)
    if marks:
        last = max(raw.rfind(","), raw.rfind("."))
        head, tail = raw[:last], raw[last + 1 :]
        if len(set(marks)) == 1 and len(marks) > 1:
            units = _grouped(raw, marks[0], text, field)  # "1,000,000": only thousands
        elif len(set(marks)) == 1 and len(tail) == 3 and _DIGITS.fullmatch(tail):
            mark = "comma" if marks[0] == "," else "point"
            raise InvalidInput(
                f'"{text.strip()}" is ambiguous (is its {mark} a thousands separator or the decimal mark?): {HOW}',
                field=field,
            )
        else:
            if len(tail) > 2 and _DIGITS.fullmatch(tail):
                raise InvalidInput(f'"{text.strip()}" has more than two decimals: {HOW}', field=field)
            units, cents = head, tail
            if len(set(marks)) == 2:
                thousands = "," if raw[last] == "." else "."
                if thousands in tail or raw.count(raw[last]) > 1:
                    raise InvalidInput(f'"{text.strip()}" is not an amount: {HOW}', field=field)
                units = _grouped(head, thousands, text, field)
    if " " in units:
        units = _grouped(units, " ", text, field)
    if not _DIGITS.fullmatch(units) or (cents and not _DIGITS.fullmatch(cents)) or len(units) > 10:
        raise InvalidInput(f'"{text.strip()}" is not an amount: {HOW}', field=field)
    value = Decimal(f"{units}.{cents or '0'}")
    result = int(value.scaleb(2))  # exact: at most two decimals
    if result < 0 or (result == 0 and not zero):
        raise InvalidInput("the amount must be more than zero", field=field)
    return result


def _grouped(units: str, separator: str, text: str, field: str) -> str:
    """``"1 000 000"`` (``separator`` " ") → ``"1000000"``: groups of three after the first."""
    first, *groups = units.split(separator)
    if not (_DIGITS.fullmatch(first) and len(first) <= 3 and all(len(g) == 3 and _DIGITS.fullmatch(g) for g in groups)):
        raise InvalidInput(f'"{text.strip()}" is not an amount: {HOW}', field=field)
    return first + "".join(groups)


def typed(cents: int) -> str:
    """Cents as a form sends them back unambiguously: ``250000`` → ``"2500.00"``."""
    return f"{cents // 100}.{cents % 100:02d}"


def count(post, prefix: str, denominations, *, field: str | None = None) -> dict[str, int]:
    """The pieces typed per denomination (inputs ``<prefix>-<cents>``; blank = none) as a count
    ``{"<cents>": pieces}`` for ``core.denominations.count_total``. ``InvalidInput`` naming
    ``field`` (default ``prefix``)."""
    lines: dict[str, int] = {}
    for d in denominations:
        text = (post.get(f"{prefix}-{d}") or "").strip()
        if not text:
            continue
        # ASCII digits only: "²".isdigit() is true, and int("²") would fail.
        if not _DIGITS.fullmatch(text) or len(text) > 9:
            raise InvalidInput(f"pieces of {format_cents(d)} are a whole number", field=field or prefix)
        if int(text):
            lines[str(d)] = int(text)
    return lines
