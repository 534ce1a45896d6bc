"""``manage.py seal_gaming_day YYYY-MM-DD [--actor NAME]``: sign the day's range of the chain now."""

from datetime import date

from django.core.management.base import BaseCommand, CommandError

from ledger.errors import DomainError
from ledger.seal import seal_gaming_day
from ledger.timeouts import with_long_statements


def parse_day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise CommandError(f"{text!r} is not a date YYYY-MM-DD") from None


class Command(BaseCommand):
    help = "Seal a gaming day: HMAC-sign its position range and last hash, appended as GamingDaySealed."

    def add_arguments(self, parser):
        parser.add_argument("day", help="the gaming day, YYYY-MM-DD")
        parser.add_argument("--actor", default="system", help="who seals (the event's actor)")

    @with_long_statements  # may outlast a request's statement budget (ledger.timeouts)
    def handle(self, *args, day: str, actor: str, **options):
        try:
            seal = seal_gaming_day(day=parse_day(day), actor=actor)
        except DomainError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(
            f"gaming day {seal['day']} sealed at event {seal['event']}: positions {seal['first_position']}"
            f"..{seal['last_position']}, last hash {seal['last_hash']}, key {seal['key_id']}"
        )
