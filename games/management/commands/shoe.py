"""``manage.py shoe verify [--shoe ID]``: check closed shoes against their commitments.

For each closed shoe: the order revealed in ``ShoeClosed`` hashes (with its salt) to the
commitment published in ``ShoeShuffled``, and every ``CardDealt`` from it is the card at its
index in that order. Exit 1 naming every fault.
"""

from django.core.management.base import BaseCommand, CommandError

from games.models import Shoe
from games.services.shoes import verify_shoe


class Command(BaseCommand):
    help = "Verify closed shoes: revealed order = commitment = every card dealt."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        verify = sub.add_parser("verify")
        verify.add_argument("--shoe", help="one shoe id (default: every closed shoe)")

    def handle(self, *args, action: str, shoe: str | None = None, **options):
        ids = (
            [shoe]
            if shoe
            else [str(s) for s in Shoe.objects.filter(state=Shoe.State.CLOSED).values_list("id", flat=True)]
        )
        faults = [fault for shoe_id in ids for fault in verify_shoe(shoe_id)]
        for fault in faults:
            self.stdout.write(fault)
        if faults:
            raise CommandError(f"{len(faults)} fault(s) in {len(ids)} shoe(s)")
        self.stdout.write(f"{len(ids)} shoe(s) verified: every revealed order matches its commitment and its cards")
