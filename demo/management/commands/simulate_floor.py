"""``manage.py simulate_floor``: keep the demo floor alive. A background player opens
the cage shift and every table (R1, B1, C1, S1, P1, T1) if closed, then plays coups at every game
at a human pace through the same services as the dealers' terminals, with patrons arriving,
buying in and leaving, and a fill or a credit now and then (``demo.floor``). When the database
goes away it waits (its heartbeat says so) and resumes when the database answers again, the
coup the outage cut off voided. Ctrl-C stops it; the next run voids a coup it left half-played."""

import random
import signal

from django.core.management.base import BaseCommand, CommandError

from demo import heartbeat
from demo.floor import TABLES, FloorSimulator
from ledger.closed_days import gaming_day_closed
from ledger.gaming_day import current_gaming_day


class Command(BaseCommand):
    help = "Play coups at every demo table at a human pace, through the services, until stopped."

    def add_arguments(self, parser):
        parser.add_argument("--pace", type=float, default=3.0, help="seconds between two steps (default 3)")
        parser.add_argument("--coups", type=int, default=None, help="stop after this many coups (default: never)")
        parser.add_argument("--seconds", type=float, default=None, help="stop after this many seconds")
        parser.add_argument("--tables", default=",".join(TABLES), help=f"comma-separated (default {','.join(TABLES)})")
        parser.add_argument("--seed", type=int, default=None, help="seed the patrons' choices")
        parser.add_argument("--quiet", action="store_true", help="print only the summary")

    def handle(self, *args, pace, coups, seconds, tables, seed, quiet, **options):
        chosen = [code.strip() for code in tables.split(",") if code.strip()]
        unknown = [code for code in chosen if code not in TABLES]
        if unknown or not chosen:
            raise CommandError(
                f"--tables: unknown table(s) {', '.join(unknown) or '(none)'}; known: {', '.join(TABLES)}"
            )
        if pace < 0:
            raise CommandError("--pace must be 0 or more seconds")
        day = current_gaming_day()
        if gaming_day_closed(day) is not None:
            why = (
                f"gaming day {day} is closed: no coup can be played on it. The floor opens on the next gaming day"
                " (GAMING_DAY_START, CASINO_TIMEZONE); scripts/demo.sh serves it on a day of its own."
            )
            heartbeat.beat(state="stopped", gaming_day=day, pace=pace, coups=0, why=why)
            raise CommandError(why)
        out = (lambda line: None) if quiet else self.stdout.write

        def beat(stats) -> None:
            heartbeat.beat(state="playing", gaming_day=current_gaming_day(), pace=pace, coups=stats.coups)

        def waiting(why: str) -> None:
            heartbeat.beat(
                state="waiting", gaming_day=current_gaming_day(), pace=pace, coups=floor.stats.coups, why=why
            )

        def stop(signum, frame):  # scripts/demo.sh ends the player with SIGTERM: say so in the heartbeat
            raise KeyboardInterrupt

        previous = signal.signal(signal.SIGTERM, stop)
        floor = FloorSimulator(pace=pace, rng=random.Random(seed), out=out, tables=chosen, beat=beat, waiting=waiting)
        why = "the player finished the coups or the time it was given"
        try:
            stats = floor.run(coups=coups, seconds=seconds)
        except KeyboardInterrupt:
            stats, why = floor.stats, "the player was stopped (Ctrl-C or the end of scripts/demo.sh)"
        except Exception as exc:
            heartbeat.beat(
                state="stopped",
                gaming_day=current_gaming_day(),
                pace=pace,
                coups=floor.stats.coups,
                why=f"the player failed: {exc.__class__.__name__}: {exc}",
            )
            raise
        finally:
            signal.signal(signal.SIGTERM, previous)
        heartbeat.beat(state="stopped", gaming_day=current_gaming_day(), pace=pace, coups=stats.coups, why=why)
        self.stdout.write(
            f"Floor simulator: {stats.coups} coups, {stats.bets} bets, {stats.refused} refused and recorded,"
            f" {stats.arrivals} arrivals, {stats.departures} departures, {stats.slips} fills or credits."
        )
