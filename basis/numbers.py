"""Whole numbers as the rules take them. Standard library only."""


def is_int(value: object) -> bool:
    """An ``int`` and nothing else: ``bool`` is an int subclass, and ``True`` must not stand for
    1 (a box, a seat, a cent)."""
    return type(value) is int
