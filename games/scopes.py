"""The table behind a table-scoped URL, for ``staff``'s permissions (``staff.scopes``).

A dealer or a device acts only on his own table: these resolvers read which table a round, a
shoe or a bet belongs to. An id that is not a UUID written in ASCII names nothing (None).
"""

from __future__ import annotations

import uuid

from core.ids import uuid_of
from staff import scopes

from .models import Bet, Round, Shoe, Table


def _uuid(value) -> uuid.UUID | None:
    try:
        return uuid_of(value)
    except (ValueError, AttributeError, TypeError):
        return None


def _by_id(model, path: str, kind: str):
    def resolve(kwargs: dict) -> str | None:
        key = _uuid(kwargs.get(f"{kind}_id", kwargs.get("id")))
        if key is None:
            return None
        return model.objects.filter(pk=key).values_list(path, flat=True).first()

    return resolve


def register() -> None:
    scopes.register("table", lambda kwargs: kwargs.get("code"))
    scopes.register("round", _by_id(Round, "table__code", "round"))
    scopes.register("shoe", _by_id(Shoe, "table__code", "shoe"))
    scopes.register("bet", _by_id(Bet, "round__table__code", "bet"))
    scopes.register_table_exists(lambda code: Table.objects.filter(code=code).exists())
