"""``manage.py verify_export OUT_DIR_OR_ZIP [--strict] [--key K]``: the standalone verifier, trusting this
site's public key and LEDGER_TRUSTED_PUBLIC_KEYS (and LEDGER_SEAL_KEY for older, HMAC-signed exports).

On a site with a key of its own it is always strict: an export signed with a development key
(public, in the code) or a key not trusted here fails; only a site still on its development key
verifies with a warning."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from ledger import signing
from ledger.export.verify_export import verify


class Command(BaseCommand):
    help = "Verify a gaming-day export (files, hash chain, seals, balances); exit 1 naming the first mismatch."

    def add_arguments(self, parser):
        parser.add_argument("path", help="the export directory or zip")
        parser.add_argument("--key", help="the HMAC seal key of an older export (default: LEDGER_SEAL_KEY)")
        parser.add_argument(
            "--strict", action="store_true", help="fail on a development key or a key not trusted here (default: warn)"
        )

    def handle(self, *args, path: str, key: str | None, strict: bool = False, **options):
        secret = key if key is not None else settings.LEDGER_SEAL_KEY
        trusted = tuple(signing.trusted_public_keys())
        strict = strict or signing.signing_key().kind != "development"
        report = verify(path, secret.encode() if secret else None, strict=strict, trusted=trusted)
        if not report.ok:
            raise CommandError(report.message)
        self.stdout.write(report.message)
