"""The positions of the events the application did not write, as this process last found them
(``ledger.seal_scan``); ``Event.objects`` and ``Posting.objects`` leave them out. Kept apart
from the scan, which reads the models: the models read this."""

from __future__ import annotations

_positions: frozenset[int] = frozenset()


def positions() -> frozenset[int]:
    """The positions known not to be the application's (no query)."""
    return _positions


def keep(found: frozenset[int]) -> None:
    """Replace the known positions with ``found`` (``ledger.seal_scan`` only)."""
    global _positions
    _positions = found
