"""Ed25519 signatures of the ledger's anchors: checkpoints, daily seals, export manifests.

The private key is a file outside the database (``LEDGER_SIGNING_KEY_FILE``: PEM, PKCS#8,
unencrypted, readable by the application's user only). Without one, a development key is
generated on first use at ``LEDGER_DEVELOPMENT_KEY_FILE`` (``var/``), and everything it signs
says ``key_kind: "development"``: ``manage.py check --deploy`` reports that as an error
(``ledger.checks``) and ``verify_export --strict`` refuses it.

A signature covers the canonical JSON (``ledger.hashing.canonical_json``) of the signed
document without its ``signature`` field. Public keys travel as 64 hex digits (the raw 32
bytes); ``key_id`` is ``ed25519:`` and the first 16 hex digits of their SHA-256.
"""

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from .export.verify_export import ED25519, key_fingerprint
from .hashing import canonical_json

ALGORITHM = ED25519
SIGNED_FIELDS = ("algorithm", "key_id", "key_kind", "public_key")


@dataclass(frozen=True)
class SigningKey:
    """The site's key pair: ``public_key`` (64 hex digits), ``key_id``, ``kind`` (configured | development)."""

    private: Ed25519PrivateKey
    public_key: str
    key_id: str
    kind: str
    path: str

    def sign_bytes(self, message: bytes) -> str:
        """Hex Ed25519 signature (128 digits) of ``message``."""
        return self.private.sign(message).hex()

    def sign_raw(self, message) -> bytes:
        """The raw 64-byte Ed25519 signature of ``message`` (bytes, or any buffer such as an
        ``mmap`` of a file: a file's detached signature, ``ledger.export.detached``)."""
        return self.private.sign(message)

    def public_pem(self) -> str:
        """The public key as PEM (``PUBLIC KEY``, RFC 8410): what ``openssl pkeyutl -pubin`` reads."""
        return (
            self.private.public_key()
            .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
            .decode()
        )

    def stamp(self) -> dict:
        """The fields a signed document carries about its key."""
        return {"algorithm": ALGORITHM, "key_id": self.key_id, "key_kind": self.kind, "public_key": self.public_key}


def development_key_path() -> Path:
    default = Path(settings.BASE_DIR) / "var" / "ledger-signing-key.dev.pem"
    return Path(getattr(settings, "LEDGER_DEVELOPMENT_KEY_FILE", "") or default)


def uses_development_key() -> bool:
    """True when no key file is configured, or the configured one is the development key's file."""
    configured = getattr(settings, "LEDGER_SIGNING_KEY_FILE", "")
    return not configured or Path(configured).resolve() == development_key_path().resolve()


def signing_key() -> SigningKey:
    """The key of this site. Raises ``ImproperlyConfigured`` when the configured file is
    missing, unreadable or not an Ed25519 private key."""
    if uses_development_key():
        return load_key(str(development_key_path()), "development")
    return load_key(str(settings.LEDGER_SIGNING_KEY_FILE), "configured")


@lru_cache(maxsize=8)
def load_key(path: str, kind: str = "configured") -> SigningKey:
    """The key in the PEM file ``path``; ``kind`` "development" creates the file when missing."""
    file = Path(path)
    if kind == "development" and not file.exists():
        _create_development_key(file)
    try:
        private = serialization.load_pem_private_key(file.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise ImproperlyConfigured(f"LEDGER_SIGNING_KEY_FILE {path}: no Ed25519 private key ({exc})") from None
    if not isinstance(private, Ed25519PrivateKey):
        raise ImproperlyConfigured(f"LEDGER_SIGNING_KEY_FILE {path}: not an Ed25519 private key")
    public = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()
    return SigningKey(private, public, key_fingerprint(public), kind, path)


def _create_development_key(file: Path) -> None:
    file.parent.mkdir(parents=True, exist_ok=True)
    pem = new_private_key_pem()
    try:
        descriptor = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return  # another process made it first: use that one
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(pem)


def new_private_key_pem() -> bytes:
    """A fresh Ed25519 private key, PEM (PKCS#8, unencrypted): what LEDGER_SIGNING_KEY_FILE holds."""
    return Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def sign_document(document: dict) -> dict:
    """``document`` with the key's fields (``algorithm``, ``key_id``, ``key_kind``,
    ``public_key``) and ``signature`` over the canonical JSON of all the rest."""
    key = signing_key()
    signed = {**{k: v for k, v in document.items() if k != "signature"}, **key.stamp()}
    signed["signature"] = key.sign_bytes(canonical_json(signed).encode())
    return signed


def trusted_public_keys() -> set[str]:
    """Public keys (hex) whose signatures this site accepts: its own and LEDGER_TRUSTED_PUBLIC_KEYS
    (keys used before a rotation, or the production key on an auditor's machine)."""
    trusted = {key.strip().lower() for key in getattr(settings, "LEDGER_TRUSTED_PUBLIC_KEYS", []) if key.strip()}
    if uses_development_key() and not development_key_path().exists():
        return trusted  # a verifying machine without a key of its own (an auditor's): no key made for it
    return trusted | {signing_key().public_key}


def signature_fault(document: dict, trusted: set[str]) -> str:
    """Why ``document``'s Ed25519 signature is not acceptable ("" when it is): not Ed25519, a
    key not in ``trusted``, a ``key_id`` not its key's, or a signature that does not verify."""
    if document.get("algorithm") != ALGORITHM:
        return f"not signed with {ALGORITHM} (algorithm {document.get('algorithm')!r})"
    public = str(document.get("public_key", "")).lower()
    if public not in trusted:
        return f"signed by key {document.get('key_id')} ({public[:16]}…), not a trusted key"
    if document.get("key_id") != key_fingerprint(public):
        return "its key_id is not its public key's"
    body = {k: v for k, v in document.items() if k != "signature"}
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(public)).verify(
            bytes.fromhex(str(document.get("signature", ""))), canonical_json(body).encode()
        )
    except (InvalidSignature, ValueError):
        return "its signature does not verify (altered)"
    return ""
