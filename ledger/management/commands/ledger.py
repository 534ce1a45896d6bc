"""``manage.py ledger verify | checkpoint | public-key | rebuild [--projection X] | catch-up | replay-check | lag``.

verify       — recompute the hash chain and check it against the signed checkpoints of this
               ledger in LEDGER_CHECKPOINT_DIR (a rewritten chain, a cut tail); other ledgers'
               checkpoints are counted and ignored. Exit 0 when intact, 1 naming the first bad
               position or checkpoint file, a recorded checkpoint file missing or renamed, or
               a fault of the tables' guard (``ledger.guarded``: search path not pinned, a
               shadowing relation, a trigger missing, another owner). --require-checkpoints:
               also exit 1 when this ledger has none. The chain's result is recorded: the
               readiness probe answers 503 while the last one found it broken. Then the
               identity rows against their events (``ledger.identity``): exit 1 naming each
               staff account, dealer assignment or patron, and the field, that raw SQL changed
               behind the services (a password hash, the groups, a flag, a name or document, an
               assignment's table or end; never a secret value).
checkpoint   — sign the ledger's head and add it to LEDGER_CHECKPOINT_DIR now.
public-key   — print the public key (hex) of the signing key, to give to auditors; ``--pem``: as PEM.
rebuild      — replay projections from position 0 (all, or those named with --projection), in
               committed batches: stopped (Ctrl-C, a crash), ``rebuild --resume`` carries on.
               ``--atomic``: one transaction instead (faster; readers keep the old read models
               until it commits; all or nothing). ``--async``: one Celery task a projection,
               run in parallel by the workers, each in one transaction; the command follows
               their progress (``GET /api/projections/`` shows it too) and exits 1 if one
               failed; ``--no-follow``: start them and return.
catch-up     — apply what the projections have not seen yet (what the Celery task does).
replay-check — rebuild tables, rounds, bets, cage and colour chips from the events alone and
               compare with the live rows; exit 1 listing every difference by id.
lag          — positions each projection is behind the ledger head.
"""

import time

from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError

from ledger import checkpoints, guarded, identity, projections, rebuilds, seal_scan, signing
from ledger.balance_check import check_balances
from ledger.errors import DomainError
from ledger.event_seals import SEAL_FIELDS, first_unsealed
from ledger.models import Event
from ledger.progress import Progress
from ledger.replay import replay_check
from ledger.timeouts import with_long_statements
from ledger.verify import (
    record_verification,
    state_faults,
    verify_chain,
    with_state_faults,
    withheld_from_this_role,
)

# ``ledger verify``'s exit status when part of the chain is withheld from the role connected.
PARTIAL_EXIT = 3


class Command(BaseCommand):
    help = "Ledger maintenance: verify the chain, rebuild or catch up projections, replay-check the models."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        verify = sub.add_parser("verify", help="check positions, hash chain, posting balance and checkpoints")
        verify.add_argument(
            "--require-checkpoints", action="store_true", help="fail when LEDGER_CHECKPOINT_DIR holds no checkpoint"
        )
        sub.add_parser("checkpoint", help="sign the head and add it to LEDGER_CHECKPOINT_DIR")
        public_key = sub.add_parser("public-key", help="print the signing key's public key (hex), its id and kind")
        public_key.add_argument(
            "--pem",
            action="store_true",
            help="print it as PEM instead, for openssl pkeyutl -pubin (an export's .sig files)",
        )
        rebuild = sub.add_parser("rebuild", help="replay projections from position 0")
        rebuild.add_argument("--projection", action="append", choices=projections.names())
        rebuild.add_argument("--batch", type=int, default=projections.BATCH, help="events per committed batch")
        how = rebuild.add_mutually_exclusive_group()
        how.add_argument("--resume", action="store_true", help="carry on a stopped rebuild from its checkpoints")
        how.add_argument("--atomic", action="store_true", help="one transaction (faster, all or nothing)")
        how.add_argument(
            "--async",
            dest="in_tasks",
            action="store_true",
            help="one Celery task a projection, in parallel on the workers; follow their progress",
        )
        rebuild.add_argument("--no-follow", action="store_true", help="with --async: start the tasks and return")
        catch_up = sub.add_parser("catch-up", help="apply new events to every projection")
        catch_up.add_argument("--batch", type=int, default=projections.BATCH)
        sub.add_parser("replay-check", help="compare the models with a replay of the events")
        sub.add_parser("lag", help="positions each projection is behind")

    @with_long_statements  # may outlast a request's statement budget (ledger.timeouts)
    def handle(self, *args, action: str, **options):
        if action != "public-key":
            # A command reads with the events a page would: forged ones found first, left out.
            seal_scan.refresh()
        getattr(self, action.replace("-", "_"))(**options)

    def verify(self, require_checkpoints: bool = False, **options):
        try:
            anchors = checkpoints.examine()
        except checkpoints.CheckpointFault as fault:
            raise CommandError(f"ledger checkpoints UNTRUSTED: {fault}") from None
        mine = anchors.mine
        if require_checkpoints and not mine:
            raise CommandError(
                f"no checkpoint in {checkpoints.directory()} of this ledger "
                f"({anchors.ledger.ledger_id or 'not named yet'}){_foreign(anchors)} (--require-checkpoints)"
            )
        unguarded = guarded.faults()
        with Progress("verify", _head(), stream=self.stderr) as shown:
            result = verify_chain(checkpoints=mine, on_batch=shown.advance)
        problems = [f"ledger tables UNGUARDED: {fault}" for fault in unguarded]
        problems += [f"ledger checkpoints INCOMPLETE: {fault}" for fault in anchors.faults]
        changed, unchecked = identity.review()
        withheld = withheld_from_this_role()
        if withheld is not None:
            # The auditor's role while a coup is in play reads the events below its first face-down
            # card only, whether the chain up to it holds or not: a row made or changed by an event
            # beyond it looks changed outside the ledger. Not decided here; the whole chain's
            # reader (the application's hourly check, or this role once the coup is over) decides it.
            for mismatch in changed:
                self.stderr.write(
                    f"identity: {mismatch}: not decided, its events may lie from position {withheld} on, "
                    "withheld from this role"
                )
            changed = []
        # What the walk cannot see (balances beside their postings, accounts beside their events),
        # as the scheduled walk checks it; recorded with the chain's verdict, so this run never
        # records "intact" over a forgery the scheduled walk found (``with_state_faults``).
        state = state_faults(identity_rows=changed)
        problems += state
        if not record_verification(with_state_faults(result, state)):
            self.stderr.write("this verification is not recorded: the role connected may not write it")
        for note in unchecked:
            self.stderr.write(f"identity: {note}")
        if not result.ok:
            raise CommandError(
                "; ".join(
                    [
                        f"ledger chain BROKEN at position {result.first_bad_position}: {result.reason} "
                        f"({result.checked} events verified before it)",
                        *problems,
                    ]
                )
            )
        reached = [c for c in mine if c.position <= result.head_position]
        anchored = (
            f"{result.checkpoints} signed checkpoints match, the last at position {reached[-1].position} "
            f"({reached[-1].written_at})"
            if reached
            else f"no checkpoint in {checkpoints.directory()}: a rewritten chain or a cut tail would pass"
            if not mine
            else "no checkpoint reached yet"
        )
        partial = ""
        if result.reason:  # the auditor's role during a coup: the chain as far as it reads
            self.stdout.write(f"ledger chain verified up to position {result.head_position} only: {result.reason}")
            beyond = len(mine) - len(reached)
            partial = " as far as this role reads" + (
                f" ({beyond} signed checkpoint{'s' if beyond != 1 else ''} beyond it not checked yet)" if beyond else ""
            )
        self.stdout.write(
            f"ledger chain intact{partial}: {result.checked} events, head position {result.head_position}, "
            f"head hash {result.head_hash}; {anchored}; ledger {anchors.ledger.ledger_id or '(not named yet)'}"
            f"{_foreign(anchors)}"
        )
        if problems:
            raise CommandError("; ".join(problems))
        if result.reason:
            # Not "intact": what this role may not read yet is not verified. Exit 3, so that a
            # check run from cron alarms on it as it would on a fault, with its own code.
            raise CommandError(
                f"verification PARTIAL: positions from {result.head_position + 1} are withheld from this role "
                "until the coup in play there is over; verify again then, or as the application's role",
                returncode=PARTIAL_EXIT,
            )

    def checkpoint(self, **options):
        written = checkpoints.write_checkpoint()
        if written is None:
            position = checkpoints.latest_position()
            after = Event.chain.filter(position__gt=position).order_by("position")
            bad = first_unsealed(after.values_list(*SEAL_FIELDS).iterator(chunk_size=2000))
            if bad is not None:
                raise CommandError(f"no checkpoint written: event {bad} is not sealed by the application")
            self.stdout.write(f"no checkpoint written: the head is already anchored (last checkpoint: {position})")
            return
        self.stdout.write(f"checkpoint written: position {written.position}, hash {written.hash}, {written.file}")

    def public_key(self, pem=False, **options):
        key = signing.signing_key()
        if pem:
            self.stdout.write(key.public_pem(), ending="")
            return
        self.stdout.write(f"{key.public_key}  {key.key_id}  {key.kind}  ({key.path})")

    def rebuild(self, projection=None, batch=projections.BATCH, resume=False, atomic=False, in_tasks=False, **options):
        if in_tasks:
            self._rebuild_in_tasks(projection, follow=not options.get("no_follow"))
            return
        if atomic:
            with Progress("rebuild (one transaction)", _head(), stream=self.stderr) as shown:
                done = projections.rebuild(projection, batch=batch, on_batch=shown.advance)
            for name, position in done.items():
                self.stdout.write(f"projection {name} rebuilt from position 0: {position} events applied")
            return
        chosen = list(dict.fromkeys(projection or projections.names()))
        if not resume:
            projections.reset(chosen)
            self.stdout.write(f"emptied {', '.join(chosen)}; rebuilding in committed batches of {batch} events")
        lag = {row["projection"]: row["lag"] for row in projections.lag()}
        try:
            for name in chosen:
                with Progress(f"rebuild {name}", lag[name], stream=self.stderr) as shown:
                    applied = projections.catch_up(name, batch=batch, on_batch=shown.advance)
                self.stdout.write(f"projection {name} rebuilt: {applied} events applied, now at the head")
        except KeyboardInterrupt:
            raise CommandError(
                "rebuild stopped; every batch applied so far is committed: `manage.py ledger rebuild --resume` "
                "carries on from there"
            ) from None

    def _rebuild_in_tasks(self, projection, *, follow: bool) -> None:
        try:
            queued = rebuilds.rebuild_request(names=projection, actor="manage.py ledger rebuild --async")
        except DomainError as error:
            raise CommandError(error.message) from None
        self.stdout.write(f"rebuild queued, one task a projection: {', '.join(queued)}")
        if not follow:
            return
        try:
            status = _follow(queued, self.stderr)
        except KeyboardInterrupt:
            raise CommandError(
                "stopped following; the tasks run on in the workers: `manage.py ledger lag` or "
                "GET /api/projections/ shows them"
            ) from None
        failed = []
        for name in queued:
            row = status[name]
            rate = f", {row['events_per_second']:,} events/s" if row["events_per_second"] else ""
            self.stdout.write(f"projection {name}: {row['state']}, {row['events_done']:,} events{rate}")
            if row["state"] == "failed":
                failed.append(f"{name} ({row['error']})")
        if failed:
            raise CommandError(f"rebuild failed: {'; '.join(failed)}")

    def catch_up(self, batch: int, **options):
        for name in projections.names():
            self.stdout.write(f"projection {name}: {projections.catch_up(name, batch=batch)} events applied")

    def replay_check(self, **options):
        try:
            differences = replay_check()
        except DatabaseError as exc:
            # The auditor's read-only role: the read models are rebuilt (and rolled back) to be
            # compared, which it may not do. Said, not a traceback; the balances it can check.
            balances = list(check_balances())
            for difference in balances:
                self.stdout.write(str(difference))
            raise CommandError(
                f"replay-check: not possible as this role ({str(exc).splitlines()[0]}): run it as the application's "
                f"or the owner's role; the balances, which this role can check, "
                f"{'match the postings' if not balances else f'differ in {len(balances)} place(s)'}"
            ) from None
        for difference in differences:
            self.stdout.write(str(difference))
        if differences:
            raise CommandError(f"replay-check: {len(differences)} difference(s) between the models and the events")
        self.stdout.write("replay-check: the models match the events")

    def lag(self, **options):
        for row in projections.lag():
            self.stdout.write(
                f"{row['projection']}: checkpoint {row['checkpoint']}, head {row['head']}, lag {row['lag']}"
            )


def _follow(names: list[str], stream, *, every: float = 0.5) -> dict:
    """Show the tasks' summed progress (events done of all of them) until each has finished,
    read from their ``ProjectionRebuild`` rows; returns their last status."""
    status = rebuilds.rebuild_status()
    total = sum(status[name]["events_total"] for name in names if status[name])
    with Progress(f"rebuild {', '.join(names)} (tasks)", total, stream=stream) as shown:
        while True:
            rows = [status[name] for name in names]
            done = sum(row["events_done"] for row in rows if row)
            if done > shown.done:
                shown.advance(done - shown.done)
            if all(row and row["state"] in ("succeeded", "failed") for row in rows):
                return status
            time.sleep(every)
            status = rebuilds.rebuild_status()


def _foreign(anchors) -> str:
    """ "; N checkpoints of other ledgers ignored (…)", or "" when there are none."""
    if not anchors.foreign:
        return ""
    named = [
        f"{count} of ledger {ledger}" if ledger else f"{count} of before checkpoints named their ledger"
        for ledger, count in sorted(anchors.foreign.items())
    ]
    return f"; {sum(anchors.foreign.values())} checkpoints of other ledgers ignored ({', '.join(named)})"


def _head() -> int:
    return Event.chain.order_by("-position").values_list("position", flat=True).first() or 0
