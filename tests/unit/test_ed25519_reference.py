"""The standalone export verifier checks Ed25519 with the RFC 8032 reference arithmetic where
the ``cryptography`` library is not installed: it must give the library's answers."""

import os

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ledger.export.verify_export import ed25519_verify, ed25519_verify_reference

# RFC 8032 §7.1, test 2: one-byte message.
RFC_PUBLIC = bytes.fromhex("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c")
RFC_MESSAGE = bytes.fromhex("72")
RFC_SIGNATURE = bytes.fromhex(
    "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
    "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
)


def test_the_reference_verifies_the_rfc_vector():
    assert ed25519_verify_reference(RFC_PUBLIC, RFC_MESSAGE, RFC_SIGNATURE)
    assert not ed25519_verify_reference(RFC_PUBLIC, b"\x73", RFC_SIGNATURE)


def test_the_reference_agrees_with_the_library():
    for size in (0, 1, 31, 64, 200):
        key = Ed25519PrivateKey.generate()
        public = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        message = os.urandom(size)
        signature = key.sign(message)
        assert ed25519_verify_reference(public, message, signature)
        assert ed25519_verify(public.hex(), message, signature.hex())
        flipped = bytes([signature[0] ^ 1]) + signature[1:]
        other = (
            Ed25519PrivateKey.generate()
            .public_key()
            .public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        )
        for args in ((public, message + b"x", signature), (public, message, flipped), (other, message, signature)):
            assert not ed25519_verify_reference(*args)
            assert not ed25519_verify(args[0].hex(), args[1], args[2].hex())
    assert not ed25519_verify("zz", b"", "00")  # not hex
