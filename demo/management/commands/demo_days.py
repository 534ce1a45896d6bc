"""``manage.py demo_days``: which gaming days ``scripts/demo.sh`` plays on now (``demo.day_start``),
printed as shell assignments for the script, and the floor's day start remembered for this
database so that any later ``manage.py`` command lands on the floor's day."""

from datetime import UTC, datetime, time
from zoneinfo import ZoneInfo

from django.conf import settings
from django.core.management.base import BaseCommand

from demo.day_start import choose, remember_floor_start
from ledger.closed_days import gaming_day_closed


class Command(BaseCommand):
    help = "Print the demo's day starts (DEMO_DAY_START, FLOOR_DAY_START) as shell assignments."

    def handle(self, *args, **options):
        now = datetime.now(UTC).astimezone(ZoneInfo(settings.CASINO_TIMEZONE))
        days = choose(now, lambda day: gaming_day_closed(day) is not None)
        remember_floor_start(settings.VAR_DIR, settings.DATABASES["default"]["NAME"], days.floor_start)
        lines = {
            "DEMO_DAY_START": days.demo_start,
            "FLOOR_DAY_START": days.floor_start,
            "DEMO_DAY": days.demo_day or "",
            "FLOOR_DAY": days.floor_day or "",
            # The demo command runs on yesterday's day; closed, it prints its reports and plays nothing.
            "DEMO_RUN": "yes" if now.time() < time(23, 59) else "no",
            "DAYS_NOTE": days.why,
        }
        for name, value in lines.items():
            quoted = str(value).replace("'", "'\\''")
            self.stdout.write(f"{name}='{quoted}'")
