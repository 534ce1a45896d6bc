"""Reads for tables and rounds, and the row locks the services take."""

import uuid

from ledger.errors import InvalidInput, NotFound

from .models import Round, Table
from .rules.roulette import InvalidBet
from .rules.roulette_table import RouletteTableRules


def table_for_update(code: str) -> Table:
    """The table row, locked until commit; ``NotFound`` (404) when there is none."""
    table = Table.objects.select_for_update().filter(code=code).first() if isinstance(code, str) else None
    if table is None:
        raise NotFound(f"no table {code!r}", field="table")
    return table


def round_for_update(round_id: object) -> Round:
    """The round row, locked until commit; ``NotFound`` (404) when there is none."""
    try:
        key = uuid.UUID(str(round_id))
    except ValueError:
        raise NotFound(f"no round {round_id!r}", field="round") from None
    found = Round.objects.select_for_update().select_related("table").filter(pk=key).first()
    if found is None:
        raise NotFound(f"no round {round_id!r}", field="round")
    return found


def roulette_rules(table: Table) -> RouletteTableRules:
    """The rule set the table opened with (RULES.md §Roulette)."""
    try:
        return RouletteTableRules.from_dict(table.rules)
    except InvalidBet as exc:  # a stored rule set is validated at open; this is corruption
        raise InvalidInput(exc.message, field=exc.field) from exc


def round_in_play(table: Table) -> Round | None:
    return table.rounds.filter(state__in=Round.IN_PLAY).first()
