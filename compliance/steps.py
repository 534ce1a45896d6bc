"""The suspicion cases' event types, their stream and the digest each step's event carries
(shared by ``compliance.services``, which appends them, and ``compliance.selectors``, which
replays them)."""

from __future__ import annotations

import json

from ledger.confidential import SUSPICION_CASES
from ledger.errors import NotFound
from ledger.identity import digest

OPENED, ATTACHED, FINDINGS, DECIDED, FILED = (
    "SuspicionCaseOpened",
    "TransactionsAttached",
    "FindingsWritten",
    "CaseDecided",
    "FilingRecorded",
)
CASE_EVENTS = (OPENED, ATTACHED, FINDINGS, DECIDED, FILED)
STREAM_PREFIX = SUSPICION_CASES


def content_text(content: dict) -> str:
    """The one text of a step's content its digest is made of (keys sorted, no spaces)."""
    return json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def content_digest(case: str, event_type: str, content: dict) -> str:
    """The keyed digest (64 hex, ``ledger.identity.digest``) of a step's ``content`` that its event carries."""
    return digest("suspicion case", case, event_type, content_text(content))


def case_not_found(case: str) -> NotFound:
    """404 naming ``case``."""
    return NotFound(f"no suspicion case {case!r}", field="case")
