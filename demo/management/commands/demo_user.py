"""``manage.py demo_user``: the local logins for trying the demo (never for production).

One login per role a visitor tries, each with its name as password (README "Demo logins"):
two pit bosses (a fill one requests, the other accepts: segregation of duties), a cashier, a
cage supervisor, an auditor, a runner (who confirms carrying a fill), a compliance officer (the
suspicion cases), the drop team and the count team of the count room (two removers, two counters,
a verifier) and a dealer, who deals
the floor's classic stud table S1: a dealer reads and signs only his own table's requests, so
that is where the pit boss asks him to count a fill, a closer or an opener. Run again, it
leaves existing users' passwords alone and only adds missing roles; the dealer stays at the
table he deals (a pit boss may have moved him).
"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from demo.day import DEMO_ACTOR, PIT_BOSS, ensure_demo_staff
from staff.models import DealerAssignment
from staff.roles import Role
from staff.scopes import table_exists
from staff.services import dealer_assign, staff_account_create, staff_roles_add

# The floor's table the demo login ``dealer`` deals (demo.floor.TABLES; the demo day plays it too).
DEALER_TABLE = "S1"

# (login, role, where the login lands); the password is the login.
DEMO_LOGINS = (
    ("pitboss", Role.PIT_BOSS, "/dashboard/ (the floor)"),
    ("pitboss2", Role.PIT_BOSS, "/dashboard/ (the floor)"),
    ("cashier", Role.CASHIER, "/workstations/cage/"),
    ("cagesup", Role.CAGE_SUPERVISOR, "/workstations/cage/"),
    ("auditor", Role.AUDITOR, "/workstations/audit/"),
    ("runner", Role.RUNNER, "/workstations/runner/ (confirms carrying a fill)"),
    ("compliance", Role.COMPLIANCE, "/workstations/compliance/ (the suspicion cases)"),
    ("dealer", Role.DEALER, f"/dashboard/approvals/ (deals {DEALER_TABLE}: counts its fills, closer and opener)"),
    # The count room: two to remove a box, two to count it, a third to recount it blind.
    ("drop", Role.DROP_TEAM, "/workstations/count-room/ (removes drop boxes, naming drop2)"),
    ("drop2", Role.DROP_TEAM, "/workstations/count-room/ (the second remover)"),
    ("count", Role.COUNT_TEAM, "/workstations/count-room/ (counts drop boxes and tip boxes, naming count2)"),
    ("count2", Role.COUNT_TEAM, "/workstations/count-room/ (the second counter)"),
    ("verifier", Role.COUNT_TEAM, "/workstations/count-room/ (recounts blind)"),
)


class Command(BaseCommand):
    help = (
        "Create the demo logins (pitboss, pitboss2, cashier, cagesup, auditor, runner, compliance, dealer, drop, "
        "drop2, count, count2, verifier; password = login)."
    )

    def handle(self, *args, **options):
        users = get_user_model().objects
        for login, role, lands in DEMO_LOGINS:
            # Through the staff services: each login's creation and role are ledger events, so
            # ``ledger verify`` finds the accounts as the ledger says they are.
            if not users.filter(username=login).exists():
                staff_account_create(username=login, password=login, roles=[role], is_staff=True, actor=DEMO_ACTOR)
            else:
                staff_roles_add(username=login, roles=[role], actor=DEMO_ACTOR)
            self.stdout.write(f"Demo login: {login} / {login} ({role.label}) lands on {lands}")
        self._seat_the_dealer()
        self.stdout.write("For the local demo only (HTTP Basic or session).")

    def _seat_the_dealer(self) -> None:
        """``dealer`` deals ``DEALER_TABLE`` (a ledger event, as any assignment), unless he deals
        at a table already; the demo's pit boss assigns him."""
        if DealerAssignment.objects.filter(dealer__username="dealer", ended_at__isnull=True).exists():
            return
        if not table_exists(DEALER_TABLE):
            self.stdout.write(f"Table {DEALER_TABLE} does not exist yet: dealer deals no table (run manage.py demo).")
            return
        ensure_demo_staff()
        dealer_assign(dealer="dealer", table=DEALER_TABLE, actor=PIT_BOSS)
        self.stdout.write(f"dealer deals table {DEALER_TABLE}.")
