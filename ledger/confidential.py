"""Streams of the ledger that only some readers see in its list of events.

A suspicion case (``compliance``) is the compliance officer's: the patron must not learn of it,
so neither may the cage nor the floor, even as the type of an event in the ledger's list. Its
stream prefix is named here, below both the compliance app that writes it and the audit API
that lists the ledger.
"""

SUSPICION_CASES = "suspicion/"
