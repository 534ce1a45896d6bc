"""Which gaming table a table-scoped URL names, resolved by the apps that own the objects.

``staff`` sits below ``games`` and ``cashier`` (docs/architecture.md), so it cannot look a round,
a shoe, a bet or a slip up itself: each owning app registers a resolver for its scope in its
``AppConfig.ready`` (``games``: table, round, shoe, bet, and the check that a table exists;
``cashier``: slip). A resolver takes
the view's URL kwargs and returns the table code, or None when the URL names nothing (the
view then answers 404).
"""

from __future__ import annotations

from collections.abc import Callable

from core import logs

Resolver = Callable[[dict], "str | None"]

_RESOLVERS: dict[str, Resolver] = {}
_table_exists: Callable[[str], bool] | None = None


def register(scope: str, resolver: Resolver) -> None:
    """Make ``resolver`` answer for ``scope`` (``"round"``, ``"slip"``...)."""
    _RESOLVERS[scope] = resolver


def table_of(scope: str, kwargs: dict) -> str | None:
    """The table code the URL kwargs of a ``scope`` view point at (None when it names nothing).
    ``ValueError`` for a scope no app registered (a programming error, not bad input)."""
    try:
        resolver = _RESOLVERS[scope]
    except KeyError:
        raise ValueError(f"unknown table scope {scope!r}") from None
    code = resolver(kwargs)
    logs.bind(table=code)  # the request's log lines name the table from here on
    return code


def register_table_exists(check: Callable[[str], bool]) -> None:
    """Make ``check`` (``games``: is there a table with this code?) answer ``table_exists``."""
    global _table_exists
    _table_exists = check


def table_exists(code: object) -> bool:
    """Whether ``code`` names a gaming table (False before ``games`` registered its check)."""
    return isinstance(code, str) and _table_exists is not None and _table_exists(code)
