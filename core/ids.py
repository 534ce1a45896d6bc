"""Identifiers from the outside world (URLs, request bodies)."""

import uuid


def uuid_of(value: object) -> uuid.UUID:
    """The UUID written in ``value``; ``ValueError`` unless it is one in ASCII. ``uuid.UUID``
    alone reads any Unicode digit ("١" as 1), so a look-alike id would name a real round."""
    text = str(value)
    if not text.isascii():
        raise ValueError(f"not a UUID: {text!r}")
    return uuid.UUID(text)
