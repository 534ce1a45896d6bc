"""The bottom floor, below the ledger: what every layer uses and no game owns. Money as people
read it (``money``), the refusal every rule and service raises (``errors``), which card events
hide a card's value (``face_down``). Standard library only (tests/unit/test_architecture.py).
"""
