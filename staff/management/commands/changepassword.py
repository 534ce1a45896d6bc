"""``manage.py changepassword [USERNAME]``: Django's prompts, and the password is set through
``staff.services.staff_password_set`` (event ``StaffPasswordSet`` with the digest of the new
hash, actor ``manage.py``): Django's own command saved the row alone, which ``ledger verify``
reports as a password changed behind the ledger's back.

One operator at the console has nobody to confirm him: the command works only while the site
has fewer than two admins (``staff.accounts.console_refusal``), and the account's owner must
choose a new password at his next login, so that nobody works on with a password someone else
chose."""

import getpass

from django.contrib.auth import get_user_model
from django.contrib.auth.management.commands import changepassword
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import CommandError

from staff.accounts import console_refusal, mark_password_change_due
from staff.services import staff_password_set

CONSOLE = "manage.py"
MAX_TRIES = 3


class Command(changepassword.Command):
    def handle(self, *args, **options):
        refusal = console_refusal("changepassword")
        if refusal:
            raise CommandError(refusal)
        username = options["username"] or getpass.getuser()
        user = get_user_model()._default_manager.using(options["database"]).filter(username=username).first()
        if user is None:
            raise CommandError(f"user '{username}' does not exist")
        self.stdout.write(f"Changing password for user '{username}'")
        for _ in range(MAX_TRIES):
            first = self._get_pass()
            if first != self._get_pass("Password (again): "):
                self.stdout.write("Passwords do not match. Please try again.")
                continue
            try:
                validate_password(first, user)
            except ValidationError as err:
                self.stderr.write("\n".join(err.messages))
                continue
            staff_password_set(username=username, password=first, actor=CONSOLE)
            mark_password_change_due(user, reason="password set at the console", set_by=CONSOLE)
            return f"Password changed successfully for user '{username}'"
        raise CommandError(f"Aborting password change for user '{username}' after {MAX_TRIES} attempts")
