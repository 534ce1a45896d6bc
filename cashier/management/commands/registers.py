"""``manage.py registers YYYY-MM-DD OUT_DIR``: write the French registers of a gaming day."""

from django.core.management.base import BaseCommand

from cashier.registers.files import FORMATS, write_registers
from ledger import seal_scan
from ledger.management.commands.seal_gaming_day import parse_day
from ledger.timeouts import with_long_statements


class Command(BaseCommand):
    help = (
        "Write the registers of a gaming day (models 10, 11 bis, 12, 13, 16, 22 and the change register per "
        "cashier desk) as CSV and PDF, each with its detached signature F.sig, and public-key.pem: "
        "openssl pkeyutl -verify -pubin -inkey public-key.pem -rawin -in F -sigfile F.sig checks a file."
    )

    def add_arguments(self, parser):
        parser.add_argument("day", help="the gaming day, YYYY-MM-DD")
        parser.add_argument("out_dir", help="directory to write (created; files of the same name are replaced)")
        parser.add_argument("--format", choices=FORMATS, action="append", help="only this format (repeatable)")

    @with_long_statements  # a season's levy book reads every day of the season
    def handle(self, *args, day: str, out_dir: str, format: list[str] | None, **options):
        gaming_day = parse_day(day)
        seal_scan.refresh()  # the registers leave out the events the application did not write
        written = write_registers(gaming_day, out_dir, formats=tuple(format or FORMATS))
        self.stdout.write(f"gaming day {gaming_day.isoformat()}: {len(written)} files written to {out_dir}")
