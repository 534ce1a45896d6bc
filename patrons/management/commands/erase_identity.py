"""``manage.py erase_identity --actor NAME (PATRON ... | --due)``: erase identities past their retention.

Only the registry's name and document are erased (``patrons.services.aml.patron_identity_erase``);
the ledger never held them, so the chain and every export still verify. ``--due`` erases every
identity whose retention period (``AML_IDENTITY_RETENTION_YEARS`` after the patron's last
transaction) has ended, and lists the others with the date they become due.
"""

from django.core.management.base import BaseCommand, CommandError
from django.db.models import Q
from django.utils import timezone

from ledger.errors import DomainError
from patrons.models import Patron
from patrons.services.aml import identity_retention_ends, patron_identity_erase


class Command(BaseCommand):
    help = "Erase patrons' identities (name, document) once their AML retention period has ended."

    def add_arguments(self, parser):
        parser.add_argument("patrons", nargs="*", help="patron codes, e.g. P00001")
        parser.add_argument("--due", action="store_true", help="every identity whose retention has ended")
        parser.add_argument("--actor", required=True, help="the cage supervisor or admin erasing (a username)")

    def handle(self, *args, patrons: list[str], due: bool, actor: str, **options):
        if not patrons and not due:
            raise CommandError("name patrons, or give --due")
        if due:
            now = timezone.now()
            holders = Patron.objects.exclude(Q(name="") & Q(document="")).order_by("code")
            for patron in holders:
                ends = identity_retention_ends(patron)
                if ends <= now:
                    patrons.append(patron.code)
                else:
                    self.stdout.write(f"{patron.code}: kept until {ends.date().isoformat()}")
        failures = 0
        for code in patrons:
            try:
                result = patron_identity_erase(patron=code, actor=actor)
            except DomainError as exc:
                failures += 1
                self.stderr.write(f"{code}: {exc.message}")
                continue
            self.stdout.write(f"{code}: identity erased (retention ended {result['retention_ended']})")
        if failures:
            raise CommandError(f"{failures} identity(ies) not erased")
