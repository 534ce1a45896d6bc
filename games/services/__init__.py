"""Table-game writes: open/close tables, buy-ins, rounds and bets. Every function is one
command (``ledger.commands.ledger_command``): one durable transaction with its events."""
