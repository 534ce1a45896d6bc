"""``manage.py staff_baseline --actor NAME``: record, once, the accounts made before accounts were
recorded in the ledger (an upgraded database), so that ``ledger verify`` and the login check
know them. Accounts already recorded are left alone; one whose row contradicts an event is
named and not recorded (exit 1). It runs once: after that, an account no event made is one
made behind the ledger's back."""

from django.core.management.base import BaseCommand, CommandError

from ledger.errors import DomainError
from staff.baseline import staff_accounts_baseline


class Command(BaseCommand):
    help = "Record the accounts no identity event created yet, as they stand (once, after an upgrade)."

    def add_arguments(self, parser):
        parser.add_argument("--actor", required=True, help="who runs it (recorded as the events' actor)")

    def handle(self, *args, actor: str, **options):
        try:
            result = staff_accounts_baseline(actor=f"manage.py staff_baseline ({actor})")
        except DomainError as error:
            raise CommandError(error.message) from None
        recorded, refused = result["recorded"], result["refused"]
        if recorded:
            self.stdout.write(f"recorded as they stand: {', '.join(recorded)}")
        else:
            self.stdout.write("every account is already recorded: nothing to do")
        if refused:
            named = "; ".join(f"{username} ({', '.join(fields)})" for username, fields in refused.items())
            raise CommandError(
                f"not recorded, their rows contradict the ledger (changed behind its back?): {named}; "
                "`manage.py ledger verify` names the same fields"
            )
