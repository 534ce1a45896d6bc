"""A bet's own idempotency key, scoped to its coup.

A client (a dealer's terminal, a live-dealer front end) numbers its bets as it likes: ``b-17``
at table R1 and ``b-17`` at table R2 are two bets. The ledger's idempotency records are one
table for every command, so a bet's key is stored as ``bet:<round>:<key>`` — whether the bet
came alone (``Idempotency-Key``) or in a batch (its ``key``): a key used at one table never
answers, nor blocks, a bet at another, and a bet sent alone and then again in a batch on the
same coup is one bet.
"""

from __future__ import annotations

import uuid

from ledger.commands import idempotency_key_valid
from ledger.errors import InvalidInput

KEY_MAX = 150  # the stored key adds "bet:" and the round id (36) within the ledger's 200


def bet_key(round_id: object, key: str | None, *, field: str = "idempotency_key") -> str | None:
    """``bet:<round>:<key>`` (the round id canonical), or None for no key. Raises
    ``InvalidInput`` naming ``field`` for a key that is not 1 to ``KEY_MAX`` characters of text
    (no NUL, no lone surrogate)."""
    if key is None:
        return None
    if not (idempotency_key_valid(key) and len(key) <= KEY_MAX):
        raise InvalidInput(f"a bet's key is 1 to {KEY_MAX} characters, without NUL", field=field)
    try:
        coup = str(uuid.UUID(str(round_id)))
    except ValueError:
        coup = str(round_id)  # no such coup: the command answers 404 for it
    return f"bet:{coup}:{key}"
