"""``manage.py verify_export OUT_DIR_OR_ZIP [--key K]``: the standalone verifier with this site's seal key."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from ledger.export.verify_export import verify


class Command(BaseCommand):
    help = "Verify a gaming-day export (files, hash chain, seals, balances); exit 1 naming the first mismatch."

    def add_arguments(self, parser):
        parser.add_argument("path", help="the export directory or zip")
        parser.add_argument("--key", help="the seal key (default: LEDGER_SEAL_KEY of the settings)")

    def handle(self, *args, path: str, key: str | None, **options):
        secret = key if key is not None else settings.LEDGER_SEAL_KEY
        report = verify(path, secret.encode() if secret else None)
        if not report.ok:
            raise CommandError(report.message)
        self.stdout.write(report.message)
