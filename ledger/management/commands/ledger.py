"""``manage.py ledger verify|rebuild``.

verify  — recompute the hash chain; exit 0 when intact, 1 naming the first bad position.
rebuild — replay the projections from position 0.
"""

from django.core.management.base import BaseCommand, CommandError

from ledger.projections import rebuild_balances
from ledger.verify import verify_chain


class Command(BaseCommand):
    help = "Ledger maintenance: verify the hash chain, rebuild projections."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        sub.add_parser("verify", help="check positions, hash chain and posting balance")
        sub.add_parser("rebuild", help="replay projections from position 0")

    def handle(self, *args, action: str, **options):
        if action == "verify":
            result = verify_chain()
            if not result.ok:
                raise CommandError(
                    f"ledger chain BROKEN at position {result.first_bad_position}: {result.reason} "
                    f"({result.checked} events verified before it)"
                )
            self.stdout.write(
                f"ledger chain intact: {result.checked} events, head position {result.head_position}, "
                f"head hash {result.head_hash}"
            )
        elif action == "rebuild":
            applied = rebuild_balances()
            self.stdout.write(f"projections rebuilt from position 0: {applied} events applied")
