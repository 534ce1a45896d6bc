"""A patron's page for the pit boss: his day's rating, cash, chips, AML flags and rated days."""

from __future__ import annotations

from datetime import date, datetime
from fractions import Fraction

from basis.money import currency
from cashier.services.credit import credit_standing
from ledger import accounts, store
from ledger.errors import NotFound
from ledger.gaming_day import current_gaming_day
from ledger.models import Event, PatronDayRating
from patrons.models import Patron
from patrons.services.aml import cash_day_totals
from patrons.services.comps import KINDS, comp_balance, comps_given

from .table_reads import aml_flags


def patron_detail(code: str, *, day: date | None = None) -> dict:
    """A patron's day: rating (bets, staked, average bet, time played in seconds, actual and
    theoretical win in cents), cash in and out (every cash transaction, as the AML rules total
    them: ``patrons.services.aml.cash_day_totals``), chips held, his credit line and front money
    (``cashier.services.credit.credit_standing``; None for an unidentified patron), AML flags,
    and the last seven rated days. ``NotFound`` (404)."""
    patron = Patron.objects.filter(code=code).first() if isinstance(code, str) else None
    if patron is None:
        raise NotFound(f"no patron {code!r}", field="patron")
    day = day or current_gaming_day()
    rating = PatronDayRating.objects.filter(patron=code, gaming_day=day).first()
    cash = cash_day_totals(code, day)  # every cash transaction of his, as the AML rules total them

    def rated(row: PatronDayRating) -> dict:
        seconds = int((row.last_bet_at - row.first_bet_at).total_seconds()) if row.first_bet_at else 0
        return {
            "gaming_day": row.gaming_day,
            "bets": row.bets,
            "staked_cents": row.staked_cents,
            "average_bet_cents": row.staked_cents // row.bets if row.bets else None,
            "seconds_played": seconds,
            "actual_win_cents": row.actual_win_cents,
            "theoretical_win_cents": int(Fraction(row.theoretical_win) // 1),
        }

    history = PatronDayRating.objects.filter(patron=code).order_by("-gaming_day")[:7]
    return {
        "patron": {
            "code": patron.code,
            "name": patron.name,
            "kind": patron.kind,
            "kind_label": patron.get_kind_display(),
        },
        "manual_ratings": [
            {
                **e["data"],
                "time_in": datetime.fromisoformat(e["data"]["time_in"]),
                "by": e["actor"],
                # Timed at the table (started, then stopped when he left) or written in by hand.
                "timed": "started" in e["data"],
            }
            for e in Event.objects.filter(type="PatronRatedManually", data__patron=code, gaming_day=day)
            .order_by("-position")
            .values("data", "actor")[:20]
        ],
        "gaming_day": day,
        "rating": rated(rating) if rating else None,
        "cash_in_cents": cash["in"],
        "cash_out_cents": cash["out"],
        "chips_cents": store.balance(accounts.patron_chips(code)),
        "credit": None if patron.kind != Patron.Kind.IDENTIFIED else credit_standing(code),
        "aml_flags": aml_flags(code),
        "history": [rated(r) for r in history],
    }


def patron_comps(code: str) -> dict | None:
    """His comps: ``{"balance": comp_balance(code), "given": comps_given(code) each with the
    name of its reversal form, "kinds": [(value, label)]}``; None for anonymous play."""
    if code == accounts.ANONYMOUS_PATRON:
        return None
    given = [{**c, "form": f"reverse-{c['position']}"} for c in comps_given(code)]  # a refusal's form
    return {"balance": comp_balance(code), "given": given, "kinds": list(KINDS.items()), "currency": currency()}
