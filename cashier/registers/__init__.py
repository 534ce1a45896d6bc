"""The French casino registers (arrêté du 14 mai 2007 relatif à la réglementation des jeux dans
les casinos), generated from the ledger: one builder per register in ``books`` (typed rows, read
from events and postings only, never from the mutable tables), their CSV and PDF files, each with
a detached Ed25519 signature under the site's key, in ``files``. The mapping from the ledger's
figures to the registers' columns, with its reasons, is in docs/registers.md.
"""
