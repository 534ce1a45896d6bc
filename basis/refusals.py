"""Why a bet is refused, said once: each kind of refusal and its words for people ("3 table
maximum, 2 not enough chips" under the floor's "Bets refused today"). The engines' limits
(``basis.errors.LimitRefused``), the services' ``ledger.errors.BetRefused``, the recorded
``games.models.BetRefusal`` and the pit boss's pages all read this. Standard library only.
"""

# The limits a table's rules refuse a stake by (``LimitRefused``): its minimum or maximum, a
# black jack box's maximum (the bets on one box together), a stake the table's chips cannot
# make (``games.rules.chips``), an even chance alone where the table plays sheet 000's second
# variant.
LIMIT_KINDS: dict[str, str] = {
    "table_minimum": "table minimum",
    "table_maximum": "table maximum",
    "box_maximum": "box maximum",
    "chip_increment": "chip increment",
    "lone_even_chance": "even chance alone",
}
# Every refused bet's kind, in words: the limits, then the patron's own responsible-gaming
# self-limit, a stake larger than the chips he holds, a bet after betting closed or at a
# closed table.
REFUSAL_KINDS: dict[str, str] = {
    **LIMIT_KINDS,
    "self_limit": "self-limit",
    "insufficient_chips": "not enough chips",
    "betting_closed": "after betting closed",
    "table_closed": "at a closed table",
}
