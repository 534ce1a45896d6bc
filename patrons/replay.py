"""Replay-check of the patrons' self-limits against the ledger (``manage.py ledger replay-check``)."""

from ledger.replay import register

from .services.self_limit import check_self_limits

register(check_self_limits)
