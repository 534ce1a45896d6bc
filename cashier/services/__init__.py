"""Cage and patron writes. Every function here is a command: one durable transaction,
its ledger events appended in it (``ledger.commands.ledger_command``)."""
