"""The records of the chain's verifications (``ChainVerification``), signed with the site's key.

A verification that found the chain broken is what keeps the alarm up on every page and the
readiness probe at 503. The table is append-only (database triggers, as the ledger's), and each
row is signed with the site's Ed25519 key over its fields: a row set to "intact" with SQL, or an
"intact" row inserted after the failure by someone without the key, does not verify, and the
latest row that does not verify raises the alarm itself.

Shapes: ``record(**fields) -> ChainVerification``; ``latest() -> ChainVerification | None``, the
latest row as it may be trusted: the row itself when its signature verifies, else an unsaved
``ChainVerification`` with ``ok=False`` saying the record was altered.
"""

from __future__ import annotations

from datetime import UTC, datetime

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from django.conf import settings

from . import signing
from .hashing import canonical_json
from .models import ChainVerification

ALTERED = (
    "the record of the chain's last verification does not carry this site's signature: "
    "it was written or changed around the application"
)


def _document(row: ChainVerification) -> bytes:
    return canonical_json(
        {
            "verified_at": row.verified_at.astimezone(UTC).isoformat(),
            "ok": bool(row.ok),
            "checked": int(row.checked),
            "head_position": int(row.head_position),
            "first_bad_position": row.first_bad_position,
            "reason": row.reason,
        }
    ).encode()


def record(
    *, ok: bool, checked: int, head_position: int, first_bad_position: int | None, reason: str
) -> ChainVerification | None:
    """Insert one signed verification, dated now (UTC); None, nothing written, on a verifying
    machine (no key of its own, the site's public key trusted: an auditor's; it reads, the site's
    own beat records). Raises
    what the database raises (the auditor's read-only role may not write)."""
    no_key = signing.uses_development_key() and not signing.development_key_path().exists()
    if no_key and getattr(settings, "LEDGER_TRUSTED_PUBLIC_KEYS", None):
        return None  # a verifying machine: it trusts the site's key and has none to sign with
    row = ChainVerification(
        verified_at=datetime.now(UTC),
        ok=ok,
        checked=checked,
        head_position=head_position,
        first_bad_position=first_bad_position,
        reason=reason[:500],
    )
    row.signature = signing.signing_key().sign_bytes(_document(row))
    row.save()
    return row


def signed(row: ChainVerification) -> bool:
    """Whether ``row``'s signature verifies under one of the keys this site trusts."""
    try:
        signature = bytes.fromhex(row.signature or "")
    except ValueError:
        return False
    message = _document(row)
    for public in signing.trusted_public_keys():
        try:
            Ed25519PublicKey.from_public_bytes(bytes.fromhex(public)).verify(signature, message)
            return True
        except (InvalidSignature, ValueError):
            continue
    return False


def latest() -> ChainVerification | None:
    """The latest verification as it may be trusted (module docstring); None before the first."""
    row = ChainVerification.objects.order_by("-verified_at", "-id").first()
    if row is None or signed(row):
        return row
    return ChainVerification(
        verified_at=row.verified_at,
        ok=False,
        checked=0,
        head_position=row.head_position,
        first_bad_position=None,
        reason=ALTERED,
    )


# How a verification words a fault of the state beside a whole chain (balances, identities:
# ``ledger.verify.with_state_faults``).
BALANCES_FAULT = "the chain is whole, but the state differs from the events"


def balances_differ(record) -> bool:
    """Whether verification ``record`` failed on the state beside the chain (balances or
    identities), its chain whole."""
    return record.first_bad_position is None and record.reason.startswith(BALANCES_FAULT)
