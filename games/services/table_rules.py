"""Changing an open table's rule options (limits, zero rule, ...) between coups: a parameter
change, recorded as ``TableRulesChanged`` with who, what, before and after."""

from ledger.commands import ledger_command
from ledger.errors import InvalidInput, StateConflict
from ledger.store import NewEvent
from staff.roles import Role, require_role

from ..models import Bet, Table
from ..selectors import round_in_play, table_for_update
from ..table_record import rules_as_recorded
from .tables import _validated_rules, newly_without_edge, require_edge_signature

# The options that decide a bet in prison (RULES.md §Prison bets).
PRISON_OPTIONS = frozenset({"zero_rule", "double_prison"})


def rules_change_without_edge(code: object, rules: object) -> list[tuple[str, str]]:
    """``tables.newly_without_edge`` of the rule set table ``code`` would have with ``rules``
    merged in: the bets the change would leave without a house edge that had one; ``[]`` for an
    unknown table or rules that are no object (the change says why). ``StateConflict`` (409) when
    the table's rules row differs from its sealed events: nobody is asked to sign by it."""
    table = Table.objects.filter(code=code).first() if isinstance(code, str) else None
    if table is None or not isinstance(rules, dict):
        return []
    rules_as_recorded(table)
    return newly_without_edge(table.game, {**table.rules, **rules}, table.rules)


def table_rules_change(
    *, code: str, rules: dict, actor: str, edge_approver: str | None = None, idempotency_key: str | None = None
) -> dict:
    """Merge ``rules`` (options of the table's game, e.g. ``{"max_bet_cents": 20000}``) into the
    rule set of open table ``code``. Returns ``{"table", "before", "after", "changed", "event"}``.

    Appends ``TableRulesChanged`` on ``table/<code>`` with the whole rule set before and after
    and the names of the options that changed. Raises ``RoleRequired`` (403) unless ``actor`` is
    a pit boss; ``NotFound`` (404); ``InvalidInput`` (400, the option at fault) for options the
    game refuses; ``StateConflict`` (409) when the table is closed, a coup is in play (rules
    change between coups only), nothing would change, or ``zero_rule`` / ``double_prison``
    would change while bets are in prison at the table. A rule set after the change that gives
    the house no edge on some bet needs ``edge_approver``'s second signature (403 without it;
    ``tables.require_edge_signature``), recorded as ``edge_approved_by``."""
    require_role(actor, Role.PIT_BOSS, step="changing a table's rules")
    if not isinstance(rules, dict) or not rules:
        raise InvalidInput("rules must be an object naming the options to change", field="rules")
    request = {"op": "table_rules_change", "table": code, "rules": rules}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        table = table_for_update(code)
        if table.state != Table.State.OPEN:
            raise StateConflict(f"table {code} is closed: its rules are set when it opens", field="table")
        if round_in_play(table) is not None:
            raise StateConflict(f"a coup is in play at {code}: rules change between coups", field="table")
        before = dict(table.rules)
        after = _validated_rules(table.game, {**before, **rules})
        if after == before:
            raise StateConflict("these rules are already in force", field="rules")
        changed = sorted(key for key in after if after.get(key) != before.get(key))
        edge_approval = require_edge_signature(table.game, after, edge_approver, actor, before=before)
        deciding = PRISON_OPTIONS.intersection(changed)
        if deciding and Bet.objects.in_prison().filter(round__table=table).exists():
            # The engine decides a prisoner under the rules it entered under: a level above 1
            # exists only with ``deeper``, a prisoner only with ``en_prison`` (tests/integration/test_prison_bets.py).
            raise StateConflict(
                f"bets are in prison at {code}: {', '.join(sorted(deciding))} can change once they are decided",
                field="rules",
            )
        (event,) = cmd.append(
            stream=table.stream,
            expected_version=table.version,
            events=[
                NewEvent(
                    "TableRulesChanged",
                    {"table": code, "before": before, "after": after, "changed": changed, **edge_approval},
                )
            ],
        )
        table.rules, table.version = after, event.version
        table.save(update_fields=["rules", "version"])
        return cmd.finish(
            {"table": code, "before": before, "after": after, "changed": changed, "event": event.position}
        )
