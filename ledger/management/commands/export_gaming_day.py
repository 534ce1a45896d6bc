"""``manage.py export_gaming_day YYYY-MM-DD OUT_DIR [--with-identity]``: write a day's audit export."""

from django.core.management.base import BaseCommand, CommandError

from ledger import seal_scan
from ledger.errors import DomainError
from ledger.export.writer import export_to_dir
from ledger.progress import Progress
from ledger.replica import reads_from_replica
from ledger.seal import latest_seal
from ledger.timeouts import with_long_statements

from .seal_gaming_day import parse_day


class Command(BaseCommand):
    help = (
        "Export a gaming day: events.jsonl, postings.csv, balances.csv, tables.csv, cage.csv, aml.csv and a "
        "signed manifest.json. Seal the day first (seal_gaming_day) for an export that verifies."
    )

    def add_arguments(self, parser):
        parser.add_argument("day", help="the gaming day, YYYY-MM-DD")
        parser.add_argument("out_dir", help="directory to write (created; files of the same name are replaced)")
        parser.add_argument(
            "--with-identity",
            action="store_true",
            help="fill the identity columns of aml.csv (only for an auditor or cage supervisor's copy)",
        )

    @with_long_statements  # may outlast a request's statement budget (ledger.timeouts)
    def handle(self, *args, day: str, out_dir: str, with_identity: bool, **options):
        gaming_day = parse_day(day)
        seal_scan.refresh()  # its reports leave out the events the application did not write
        # The day's seal, read on the primary: a replica that holds it holds every event it
        # covers (positions are gap-free in commit order), so the export read there is exact.
        seal = latest_seal(day=gaming_day)
        try:
            with reads_from_replica(min_position=seal.position if seal is not None else None) as alias:
                manifest = export_to_dir(
                    gaming_day,
                    out_dir,
                    include_identity=with_identity,
                    progress=lambda total: Progress(f"export {day}", total, stream=self.stderr),
                )
        except DomainError as exc:
            raise CommandError(exc.message) from None
        self.stderr.write(f"read from the database {alias!r}")
        sealed = "sealed" if manifest["seal"] else "NOT SEALED (the verifier will refuse it)"
        self.stdout.write(
            f"gaming day {manifest['day']}: {manifest['event_count']} events, positions "
            f"{manifest['first_position']}..{manifest['last_position']}, {sealed}, written to {out_dir}"
        )
