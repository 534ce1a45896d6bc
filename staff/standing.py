"""What an account may do as its own identity events recorded it, whatever its row says now.

A group added to ``auth_user_groups``, or ``is_superuser`` set, with raw SQL by someone holding
the database credentials would otherwise work at the next request, long before ``ledger verify``
names the difference. The login backend (``staff.backends``) and ``staff.roles.roles_of``
therefore take the row's flags and groups only as far as the account's sealed identity events
(``staff.identity``) granted them: never more than both say. An account whose events never
stated its groups (an account older than the events, or one made by a test's ``create_user``)
keeps its row's, unless ``STAFF_LOGIN_REQUIRES_RECORDED_ACCOUNT`` asks for a recorded account,
when it holds nothing.

The replay is kept per process and done again only when the latest identity event changes
(one indexed lookup a request, folded into the login backend's statement on PostgreSQL).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.db import connections, router

from ledger.models import Event

from .identity import EVENT_TYPES, replayed_accounts

_lock = threading.Lock()
_replayed: tuple[str | None, dict[str, dict]] = (None, {})

# The hash of the latest identity event: what the replay above is kept for. One lookup a type
# in the (type, position) index. ``WHERE type IN (...) ORDER BY position DESC LIMIT 1`` was
# planned by PostgreSQL as a backward walk of the primary key from the ledger's head until an
# identity event, which are few and old: on every request, 39 ms at 36,000 events and growing
# with the ledger (tests/benchmarks, section worker).
HEAD_SQL = (
    "SELECT e.hash FROM ledger_event e WHERE e.position = (SELECT MAX(m.p) FROM ("
    + " UNION ALL ".join(f"SELECT MAX(position) AS p FROM ledger_event WHERE type = '{name}'" for name in EVENT_TYPES)
    + ") m)"
)


@dataclass(frozen=True)
class Standing:
    """What the row may do: ``active`` (may be logged in), ``superuser``, ``staff`` (the admin
    site), and the ``groups`` (role names) it holds."""

    active: bool
    superuser: bool
    staff: bool
    groups: frozenset[str]


def identity_head() -> str:
    """The hash of the latest identity event ("" when there is none)."""
    with connections[router.db_for_read(Event)].cursor() as cursor:
        cursor.execute(HEAD_SQL)
        row = cursor.fetchone()
    return (row[0] if row else "") or ""


def _accounts(head: str) -> dict[str, dict]:
    global _replayed
    seen, accounts = _replayed
    if seen == head:
        return accounts
    with _lock:
        accounts = replayed_accounts()
        _replayed = (head, accounts)
    return accounts


def standing(user, group_names: Iterable[str], *, head: str | None = None) -> Standing:
    """``user``'s row (flags, and its groups ``group_names``) as far as his identity events
    granted it; ``head``: ``identity_head()`` when the caller read it already."""
    groups = frozenset(group_names)
    account = _accounts(identity_head() if head is None else (head or "")).get(user.get_username())
    if account is None or ("groups" not in account and account.get("created") is False):
        if settings.STAFF_LOGIN_REQUIRES_RECORDED_ACCOUNT:
            return Standing(False, False, False, frozenset())
        return Standing(user.is_active, user.is_superuser, user.is_staff, groups)
    if "groups" in account:
        groups &= frozenset(account["groups"])
    return Standing(
        active=user.is_active and account.get("is_active", True),
        superuser=user.is_superuser and account.get("is_superuser", True),
        staff=user.is_staff and account.get("is_staff", True),
        groups=groups,
    )
