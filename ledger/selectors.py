"""Reads over the ledger itself (authoritative, never stale)."""

from collections.abc import Iterable

from django.db.models import Max, Sum

from .models import Event, Posting


def head_position() -> int:
    return Event.objects.aggregate(p=Max("position"))["p"] or 0


def movement_cents(
    accounts: Iterable[str],
    *,
    after: int = 0,
    upto: int | None = None,
    currency: str = "EUR",
    excluding_types: Iterable[str] = (),
) -> int:
    """Net postings (cents) on ``accounts`` for events with ``after < position <= upto``,
    leaving out events whose type is in ``excluding_types``."""
    postings = Posting.objects.filter(account__in=list(accounts), currency=currency, event_id__gt=after)
    if excluding_types:
        postings = postings.exclude(event__type__in=list(excluding_types))
    if upto is not None:
        postings = postings.filter(event_id__lte=upto)
    return postings.aggregate(s=Sum("amount_cents"))["s"] or 0
