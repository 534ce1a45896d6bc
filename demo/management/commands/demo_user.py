"""``manage.py demo_user``: the local logins for trying the demo (never for production).

One login per role a visitor tries, each with its name as password (README "Demo logins"):
two pit bosses (a fill one requests, the other accepts: segregation of duties), a cashier, a
cage supervisor, an auditor and a runner (who confirms carrying a fill through the API).
Run again, it leaves existing users' passwords alone and only adds missing roles.
"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from demo.day import DEMO_ACTOR
from staff.roles import Role
from staff.services import staff_account_create, staff_roles_add

# (login, role, where the login lands); the password is the login.
DEMO_LOGINS = (
    ("pitboss", Role.PIT_BOSS, "/dashboard/ (the floor)"),
    ("pitboss2", Role.PIT_BOSS, "/dashboard/ (the floor)"),
    ("cashier", Role.CASHIER, "/workstations/cage/"),
    ("cagesup", Role.CAGE_SUPERVISOR, "/workstations/cage/"),
    ("auditor", Role.AUDITOR, "/workstations/audit/"),
    ("runner", Role.RUNNER, "/workstations/runner/ (confirms carrying a fill)"),
    ("dealer", Role.DEALER, "/dashboard/approvals/ (confirms the openers and closers he counts)"),
)


class Command(BaseCommand):
    help = "Create the demo logins (pitboss, pitboss2, cashier, cagesup, auditor, runner, dealer; password = login)."

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
        self.stdout.write("For the local demo only (HTTP Basic or session).")
