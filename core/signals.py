"""Signals the base sends for the apps above it to act on (the base never imports them).

``bet_refused``: sent by the API's exception handler once a command refusing a bet has rolled
back; arguments ``exc`` (``ledger.errors.BetRefused``), ``actor`` (username) and
``idempotency_key`` (the request's header or None). ``games`` records the refusal.
"""

from django.dispatch import Signal

bet_refused = Signal()
