"""Detached signatures of an export's files, checkable with ``openssl`` alone.

Each file F gets ``F.sig``: the raw 64-byte Ed25519 signature of F's exact bytes under the
site's key, and the export carries that key as ``public-key.pem``. An inspector checks a file
with ``openssl pkeyutl -verify -pubin -inkey public-key.pem -rawin -in F -sigfile F.sig``
(``docs/regulatory_exports.md``), without our verifier. Pure Ed25519 signs the whole message
in one call, so a file is signed through an ``mmap`` of it: the page cache holds it, not the
heap, and the export's memory stays flat in the day's size.
"""

import mmap
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ..signing import SigningKey
from .verify_export import PUBLIC_KEY_FILE, SIG_SUFFIX


def sign_file(key: SigningKey, handle) -> bytes:
    """The raw Ed25519 signature (64 bytes) of the whole content of the open binary file ``handle``."""
    handle.flush()
    handle.seek(0, 2)
    if handle.tell() == 0:
        return key.sign_raw(b"")
    with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        return key.sign_raw(mapped)


def sign_path(key: SigningKey, path: Path) -> None:
    """Write ``path``.sig beside ``path``."""
    with open(path, "rb") as handle:
        signature = sign_file(key, handle)
    Path(f"{path}{SIG_SUFFIX}").write_bytes(signature)


def write_public_key(key: SigningKey, directory: Path) -> None:
    """``public-key.pem`` and its own ``.sig`` in ``directory``."""
    path = directory / PUBLIC_KEY_FILE
    path.write_text(key.public_pem(), encoding="ascii")
    sign_path(key, path)


class Spool:
    """A member's bytes kept in a temporary file as they stream out, to be signed once complete."""

    def __init__(self):
        self.file = tempfile.TemporaryFile()

    def tee(self, chunks: Iterator[bytes]) -> Iterator[bytes]:
        for chunk in chunks:
            self.file.write(chunk)
            yield chunk

    def signature(self, key: SigningKey) -> bytes:
        try:
            return sign_file(key, self.file)
        finally:
            self.file.close()


def public_key_members(key: SigningKey) -> list[tuple[str, bytes]]:
    """``(name, bytes)`` of ``public-key.pem`` and its signature, for a zip."""
    pem = key.public_pem().encode("ascii")
    return [(PUBLIC_KEY_FILE, pem), (PUBLIC_KEY_FILE + SIG_SUFFIX, key.sign_raw(pem))]
