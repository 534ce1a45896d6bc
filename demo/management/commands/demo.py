"""``manage.py demo``: play a session at each demo table (black jack, Caribbean stud, classic
stud, baccarat, trente-et-quarante, English roulette) through the services, print the summaries and close the
gaming day. Run again on a later gaming day, it adds a session; on a day it already closed, it
plays nothing (a closed day keeps its figures) and prints that day's reports."""

import os
import random

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.test.utils import override_settings

from basis.money import format_cents
from demo.blackjack import play_blackjack_session
from demo.classic_stud import RULES as CLASSIC_STUD_RULES
from demo.classic_stud import play_classic_stud_session
from demo.closing import demo_day_reports, demo_gaming_day_close, format_daily_report
from demo.day import demo_cage_shift_open
from demo.day_start import DEMO_DAY_START, served_day_start
from demo.floor import tidy_floor
from demo.roulette import play_demo_session
from demo.stud import play_caribbean_session
from demo.tables import play_baccarat_session, play_trente_quarante_session
from ledger.closed_days import gaming_day_closed
from ledger.gaming_day import current_gaming_day
from ledger.progress import Progress
from ledger.timeouts import with_long_statements


def _eur(cents: int) -> str:
    return format_cents(cents)  # with CASINO_CURRENCY


class Command(BaseCommand):
    def _progress(self, label: str, total: int, unit: str = "coups") -> Progress:
        """A bar on a terminal, a line every PROGRESS_LOG_SECONDS otherwise (on stderr)."""
        return Progress(label, total, unit=unit, stream=self.stderr)

    help = (
        "Play a demo session: black jack at B1, Caribbean stud at C1, classic five-card stud at S1, punto banco"
        " at P1, trente-et-quarante at T1, English roulette at R1 (seeds the cage, tables and regular patrons if"
        " missing), then rebuild the projections and verify the chain."
    )

    def add_arguments(self, parser):
        parser.add_argument("--spins", type=int, default=200)
        parser.add_argument("--patrons", type=int, default=6)
        parser.add_argument("--blackjack-coups", type=int, default=100, help="coups at black jack table B1 (0: none)")
        parser.add_argument("--stud-coups", type=int, default=50, help="coups at Caribbean stud table C1 (0: none)")
        parser.add_argument(
            "--classic-stud-coups", type=int, default=5, help="hands of classic five-card stud at table S1 (0: none)"
        )
        parser.add_argument("--baccarat-coups", type=int, default=60, help="coups at baccarat table P1 (0: none)")
        parser.add_argument("--tq-coups", type=int, default=60, help="coups at trente-et-quarante table T1 (0: none)")
        parser.add_argument("--seed", type=int, default=None, help="seed the patrons' choices (the ball stays random)")

    @with_long_statements  # may outlast a request's statement budget (ledger.timeouts)
    def handle(self, *args, **options):
        database = settings.DATABASES["default"]["NAME"]
        if "GAMING_DAY_START" not in os.environ and served_day_start(settings.VAR_DIR, database) is not None:
            # A database that served a live floor: today's gaming day is the floor's, and the demo
            # day is yesterday's (demo.day_start), so a demo run by hand never closes the floor's day.
            with override_settings(GAMING_DAY_START=DEMO_DAY_START):
                return self._play(*args, **options)
        return self._play(*args, **options)

    def _play(
        self,
        *args,
        spins: int,
        patrons: int,
        seed: int | None,
        blackjack_coups: int,
        stud_coups: int,
        classic_stud_coups: int,
        baccarat_coups: int,
        tq_coups: int,
        **options,
    ):
        if spins < 1 or not 1 <= patrons <= 8:
            raise CommandError("--spins must be at least 1 and --patrons between 1 and 8")
        day = current_gaming_day()
        if gaming_day_closed(day) is not None:
            self.stdout.write(
                f"Gaming day {day} was closed by an earlier run: a closed day keeps its figures and nothing more is"
                " played on it (ledger.closed_days). Its reports follow; scripts/demo.sh serves today's floor."
            )
            self.stdout.write(format_daily_report(demo_day_reports(day, closed=False)))
            return
        if changed := tidy_floor():  # the live floor played this day before: its leftovers go first
            self.stdout.write(
                f"Tidied the floor left by the background player: {changed} colour stack(s) changed back."
            )
        rng = random.Random(seed)
        refusing = []  # the session reports that count refused bets (each recorded, as the API does)
        demo_cage_shift_open()  # the cashier counts the cage in
        if blackjack_coups:
            self.stdout.write(f"Playing {blackjack_coups} coups of black jack at table B1 on basic strategy…")
            with self._progress("black jack B1", blackjack_coups) as shown:
                b = play_blackjack_session(coups=blackjack_coups, rng=rng, progress=shown)
            refusing.append(b)
            self.stdout.write(
                "\n".join(
                    [
                        "Black jack summary",
                        f"  coups / hands / refused    {b.coups} / {b.hands} / {b.refused}",
                        f"  handle (total staked)      {_eur(b.settlements['staked'])}",
                        f"  drop (cash at the table)   {_eur(b.drop_cents)}",
                        f"  table win (ledger)         {_eur(b.table_win_cents)}",
                        f"  table win (settlements)    {_eur(b.settlements['house_win'])}",
                        f"  shoes closed and verified  {b.shoes_verified} (order = commitment = cards dealt)",
                    ]
                )
            )
            if b.shoe_faults or b.table_win_cents != b.settlements["house_win"]:
                raise CommandError(f"black jack session inconsistent: {b.shoe_faults or 'win differs'}")
        if stud_coups:
            self.stdout.write(f"Playing {stud_coups} coups of Caribbean stud at table C1…")
            with self._progress("Caribbean stud", stud_coups) as shown:
                c = play_caribbean_session(coups=stud_coups, progress=shown)
            self.stdout.write(
                "\n".join(
                    [
                        "Caribbean stud summary",
                        f"  coups / raises / folds     {c.coups} / {c.raises} / {c.folds}",
                        f"  handle (total staked)      {_eur(c.settlements['staked'])}",
                        f"  table win (ledger)         {_eur(c.table_win_cents)}",
                        f"  table win (settlements)    {_eur(c.settlements['house_win'])}",
                    ]
                )
            )
            if c.table_win_cents != c.settlements["house_win"]:
                raise CommandError("Caribbean stud session inconsistent: the table win differs from the settlements")
        if classic_stud_coups:
            hands = "hand" if classic_stud_coups == 1 else "hands"
            self.stdout.write(f"Playing {classic_stud_coups} {hands} of classic five-card stud at table S1…")
            with self._progress("classic stud S1", classic_stud_coups, unit="hands") as shown:
                k = play_classic_stud_session(coups=classic_stud_coups, rng=rng, progress=shown)
            cap = _eur(CLASSIC_STUD_RULES["rake_cap_cents"])
            self.stdout.write(
                "\n".join(
                    [
                        "Classic five-card stud summary (players against each other; the house rakes the pots)",
                        f"  hands / showdowns          {k.coups} / {k.showdowns}",
                        f"  handle (put in the pots)   {_eur(k.settlements['staked'])}",
                        f"  rake taken                 {_eur(k.rake_cents)}"
                        f" ({CLASSIC_STUD_RULES['rake_pct']} % of each pot, at most {cap} a hand)",
                        f"  table win (ledger)         {_eur(k.table_win_cents)}",
                        f"  table win (settlements)    {_eur(k.settlements['house_win'])}",
                    ]
                )
            )
            if not k.table_win_cents == k.settlements["house_win"] == k.rake_cents:
                raise CommandError("classic stud session inconsistent: the table win is not the rake taken")
        for coups, play, title in (
            (baccarat_coups, play_baccarat_session, "Baccarat (punto banco)"),
            (tq_coups, play_trente_quarante_session, "Trente-et-quarante"),
        ):
            if not coups:
                continue
            self.stdout.write(f"Playing {coups} coups of {title.lower()}…")
            with self._progress(title, coups) as shown:
                t = play(coups=coups, rng=rng, progress=shown)
            refusing.append(t)
            road = " ".join("".join(column) for column in t.history.get("bead_plate", [])) or "-"
            self.stdout.write(
                "\n".join(
                    [
                        f"{title} summary (table {t.table})",
                        f"  coups / bets / refused     {t.coups} / {t.bets} / {t.refused}",
                        f"  handle (total decided)     {_eur(t.settlements['staked'])}",
                        f"  table win (ledger)         {_eur(t.table_win_cents)}",
                        f"  table win (settlements)    {_eur(t.settlements['house_win'])}",
                        *([f"  bead plate of the last shoe {road}"] if t.history else []),
                    ]
                )
            )
            if t.table_win_cents != t.settlements["house_win"]:
                raise CommandError(f"{title} session inconsistent: the table win differs from the settlements")
        self.stdout.write(f"Playing {spins} spins of English roulette at table R1 with {patrons} seated patrons…")
        with self._progress("roulette R1", spins, unit="spins") as shown:
            r = play_demo_session(spins=spins, seated=patrons, rng=rng, out=self.stdout.write, progress=shown)
        s = r.settlements
        replay = "models match the events" if not r.replay_differences else f"{r.replay_differences} differences"
        hold = f"{100 * r.table_win_cents / r.drop_cents:.2f} %" if r.drop_cents else "n/a (no drop)"
        edge = f"{100 * s['house_win'] / s['staked']:.2f} %" if s["staked"] else "n/a"
        lines = [
            "",
            "English roulette summary",
            f"  spins                      {r.spins}",
            f"  bets placed / refused      {r.bets_placed} / {r.refused}",
            f"  handle (total staked)      {_eur(s['staked'])}",
            f"  drop (cash at the table)   {_eur(r.drop_cents)}",
            f"  table win (ledger)         {_eur(r.table_win_cents)}",
            f"  table win (settlements)    {_eur(s['house_win'])}",
            f"  hold (win / drop)          {hold}",
            f"  win / handle               {edge}  (theory: 2.70 %, 1.35 % on even chances)",
            "  patrons' net results:",
            *[f"    {code:<8} {_eur(net):>18}" for code, net in r.patrons.items()],
            f"  roulette events appended   {r.events_appended} (positions {r.first_position + 1}–{r.last_position})",
            f"  projections rebuilt        {r.projection_events} events replayed into each projection",
            f"  replay-check               {replay}",
            f"  chain verified             {'yes' if r.verified else 'NO'}: {r.verify_detail}",
        ]
        self.stdout.write("\n".join(lines))
        if r.table_win_cents != s["house_win"]:
            raise CommandError("the table win from the ledger differs from the sum of settlements")
        if r.replay_differences:
            raise CommandError("the models differ from a replay of the events: run `manage.py ledger replay-check`")
        if not r.verified:
            raise CommandError("the ledger chain does not verify")
        refused = r.refused + sum(report.refused for report in refusing)
        self.stdout.write(f"Refused bets recorded for the floor (every table): {refused}")
        self.stdout.write(
            f"Closing the gaming day: closers, drop count (one box {_eur(500)} short on purpose), cage close…"
        )
        self.stdout.write(format_daily_report(demo_gaming_day_close(out=self.stdout.write)))
