"""``manage.py migrate``, Django's, with the long statement budget (``ledger.timeouts``): a
migration may index or rewrite a large table in one statement."""

from django.core.management.commands.migrate import Command as DjangoMigrate

from ledger.timeouts import with_long_statements


class Command(DjangoMigrate):
    @with_long_statements
    def handle(self, *args, **options):
        return super().handle(*args, **options)
