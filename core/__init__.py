"""The shared base every app builds on: strict ids, raw SQL helpers, the command view and its
fields, the API's error mapping, pagination, parsers, the NUL-refusing middleware and the chip
and cash denominations. It imports only ``ledger`` (and Django/DRF): never an app above it."""
