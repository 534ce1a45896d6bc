"""Batch bet intake for live-dealer scale: many patrons' bets on one coup.

A live-dealer table takes thousands of remote bets in a 15–20 s window; one command per bet
pays one commit each. A batch is one command: every bet in it is checked exactly as a single
placement checks it (``bets.bet_check``: balance, limits per position, self-limit, colour
chips), accepted or refused on its own, and the accepted ones are appended in one ledger
transaction. Bets earlier in the batch count against later ones (the patron's balance and his
stake per position), as if they had been placed one after the other in the batch's order.

Idempotency, twice over:
- the batch's ``Idempotency-Key`` (``ledger_command``): a retried batch gets its first answer;
- each bet's own ``key``: kept (as ``IdempotencyRecord`` ``bet:<round>:<key>``) for an accepted
  bet, so a batch sent again under a new batch key, or a bet sent again in a later batch, is
  answered with the bet already placed (``"replayed": true``) and places nothing. The same
  key with another bet is refused (``idempotency_key_reused``). A refused bet keeps no key:
  sent again, it is checked again, like a single refused placement.

A bet refused by the house's rules (a table limit, the self-limit, the chips he holds…) is
recorded as a ``BetRefusal`` (the floor's count), in the batch's transaction, under the bet's
own key when it has one (so a retry records it once).

Speed (30,000 bets in a 10 s window, batches serialised by the writer lock): under
the lock, one statement reads every patron's chips, self-limit and bets on the coup
(``batch_placement_reads``), the checks run in memory against it, and on PostgreSQL the bet
rows and the per-bet keys go in by COPY (``_copy``) beside the ledger's own COPY of the events.
A card game's batch goes bet by bet through its game's service (one append a bet, all in the
batch's one transaction).
"""

from __future__ import annotations

import re

from django.db import connection, transaction
from django.db.models import JSONField
from django.utils import timezone

from basis.errors import RuleError
from core import rawsql
from core.ids import CODE_PATTERN
from ledger.commands import idempotency_key_valid, ledger_command, projections_after_commit, within
from ledger.errors import BetRefused, DomainError, InvalidInput, StateConflict
from ledger.hashing import fingerprint
from ledger.jsoncodec import canonical, loads
from ledger.models import IdempotencyRecord

from ..catalog import spec
from ..models import Bet, Round
from ..selectors import batch_placement_reads, bet_placement_reads, roulette_rules
from .bet_keys import KEY_MAX
from .bets import bet_check, betting_open_check
from .refusals import bet_refusal_record

MAX_BETS = 1_000
BET_FIELDS = frozenset({"patron", "stake_cents", "chips", "bet", "announce", "key"})


def bet_batch_place(*, round_id: str, bets: object, actor: str, idempotency_key: str | None = None) -> dict:
    """Place up to ``MAX_BETS`` bets of many patrons on one coup, in one transaction.

    ``bets``: each the body of the game's single placement plus its own idempotency ``key``:
    roulette ``{"patron", "stake_cents", "bet" | "announce", "chips"?}`` (``bets.bet_place``,
    checked by ``bet_check`` and appended in one append); baccarat and trente-et-quarante
    ``{"patron", "bet", "stake_cents"}``, black jack ``{"patron", "box", "stake_cents",
    "seated"?}``, Caribbean stud ``{"patron", "box", "ante_cents"}``: each through the game's
    own single service in a savepoint of the batch's transaction (its answer as ``"placed"``).

    Returns ``{"round", "version", "accepted", "refused", "results"}``; ``results`` in the
    order sent, each ``{"index", "key", "patron", "status": "accepted", "bets": [{"bet",
    "position", "stake_cents"}], "total_cents", "replayed"}`` or ``{"index", "key", "patron",
    "status": "refused", "error", "field", "detail", "kind"?}`` with the error code and field a single
    placement would answer (``insufficient_funds``/``stake_cents``, ``invalid``/``chips``…) and,
    for a table limit or the self-limit, its ``kind`` (``table_maximum``, ``self_limit``…).

    Raises ``InvalidInput`` (400) for a malformed batch (``bets`` not a list, empty, or over
    ``MAX_BETS``: field ``bets``) or a classic stud coup (``round``); ``NotFound`` (404);
    ``StateConflict`` (409) when betting is closed on the coup: nothing is placed, and each
    bet of the batch that names a patron is recorded as refused (kind ``betting_closed`` or
    ``table_closed``) after the rollback.

    Which refusals are recorded (``BetRefusal``): every well-formed bet the house's rules
    refuse — a table limit, the self-limit, chip increments, an even chance alone, fewer chips
    than the stake (``insufficient_funds``, kind ``insufficient_chips``), betting closed.
    A malformed bet (a field missing or of the wrong shape, an unknown patron, a reused key)
    is answered ``refused`` with its 400 but not recorded: it is the client's bug, not a bet
    the table turned down, and the floor's count is of bets a patron tried to make.
    """
    if not isinstance(bets, list) or not bets:
        raise InvalidInput("bets is a non-empty list of bets", field="bets")
    if len(bets) > MAX_BETS:
        raise InvalidInput(f"a batch holds at most {MAX_BETS} bets, not {len(bets)}", field="bets")
    closed: list[tuple[BetRefused, object]] = []  # (refusal, bet key) when betting is closed
    try:
        return _batch_place(round_id, bets, actor=actor, idempotency_key=idempotency_key, closed=closed)
    except StateConflict:
        # The batch's transaction is gone; each well-formed bet it held is a refused bet.
        for exc, key in closed:
            bet_refusal_record(exc, actor=actor, idempotency_key=f"bet:{exc.round_id}:{key}" if key else None)
        raise


def _closed_refusals(coup: Round, bets: list) -> list[tuple[BetRefused, object]]:
    """A ``BettingClosedRefused`` for each bet of the batch that names a patron (its stake, or
    0 when it sends none), with its key: what is recorded when the coup takes no more bets."""
    found = []
    for item in bets:
        if not isinstance(item, dict) or not isinstance(item.get("patron"), str):
            continue  # not a bet at all: malformed input, not a refused bet
        stake = item.get("stake_cents", item.get("ante_cents"))
        try:
            betting_open_check(coup, patron=item["patron"], stake_cents=stake)
        except BetRefused as exc:
            found.append((exc, item.get("key")))
    return found


def _batch_place(round_id: str, bets: list, *, actor: str, idempotency_key: str | None, closed: list) -> dict:
    """``bet_batch_place`` once its shape is checked; ``closed`` gets the refusals to record
    when the coup's betting is closed (the ``StateConflict`` then raised)."""
    request = {"op": "bet_batch_place", "round": str(round_id), "bets": bets}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        first = bet_placement_reads(round_id, None)  # the coup, locked, of any game
        coup = first.coup
        table = coup.table
        placer = _card_placer(table.game)
        if placer is None and not spec(table.game).layout_bets:
            raise InvalidInput(f"table {table.code} is a {table.game} table: it takes no batch", field="round")
        if coup.state != Round.State.BETTING:
            closed.extend(_closed_refusals(coup, bets))
        betting_open_check(coup)
        rules = roulette_rules(table) if placer is None else None
        fields = BET_FIELDS if placer is None else placer[1] | {"key"}
        keys = _stored_keys(coup.id, bets)
        # Every patron's balance, self-limit and bets on the coup in one read under the lock:
        # nothing moves them until this command commits (one read a patron was half its time).
        codes = [b.get("patron") for b in bets if isinstance(b, dict)]
        reads = batch_placement_reads(first, codes) if placer is None else {}
        spent: dict[str, int] = {}
        seen: dict[str, tuple[str, dict]] = {}  # bet key -> (fingerprint, result) within this batch
        results, rows, events, to_keep, refusals = [], [], [], [], []
        for index, item in enumerate(bets):
            key = item.get("key") if isinstance(item, dict) else None
            patron = item.get("patron") if isinstance(item, dict) else None
            answer = {"index": index, "key": key, "patron": patron}
            try:
                _check_shape(item, fields)
                sent = {k: item.get(k) for k in sorted(fields - {"key"})}
                print_ = fingerprint({"actor": actor, "round": str(coup.id), **sent}) if key is not None else None
                earlier = seen.get(key) or keys.get(key) if key is not None else None
                if earlier is not None:
                    if earlier[0] != print_:
                        raise _KeyReused("this bet key was already used for a different bet", field="key")
                    results.append({**earlier[1], "index": index, "replayed": True})
                    continue
                if placer is not None:
                    # A card game's bet goes through its own single service, in a savepoint of
                    # this transaction (``within``): its checks and its refusal, nothing copied.
                    placed = _card_place(cmd, placer, coup, item, actor)
                if placer is None:
                    mine = reads[patron]
                    placement = bet_check(
                        mine,
                        rules=rules,
                        patron=patron,
                        stake_cents=item.get("stake_cents"),
                        bet=item.get("bet"),
                        announce=item.get("announce"),
                        chips=item.get("chips", Bet.Chips.VALUE),
                        spent=spent,
                    )
            except (DomainError, RuleError) as exc:
                exc = exc if isinstance(exc, DomainError) else InvalidInput(exc.message, field=exc.field)
                answer.update(status="refused", error=exc.code, field=exc.field, detail=exc.message)
                if isinstance(exc, BetRefused):
                    answer["kind"] = exc.kind  # a table limit or his self-limit: recorded for the floor
                    refusals.append((exc, key))
                results.append(answer)
                continue
            if placer is not None:
                accepted = {**answer, "status": "accepted", "placed": placed, "replayed": False}
                results.append(accepted)
                if key is not None:
                    seen[key] = (print_, accepted)
                    to_keep.append((key, print_, accepted))
                continue
            spent[placement.source] = spent.get(placement.source, 0) + placement.total_cents
            mine.placed.extend((row.position, row.stake_cents) for row in placement.rows)
            rows.extend(placement.rows)
            events.extend(placement.events)
            accepted = {
                **answer,
                "patron": placement.patron.code,
                "status": "accepted",
                "bets": [
                    {"bet": str(b.id), "position": b.position, "stake_cents": b.stake_cents} for b in placement.rows
                ],
                "total_cents": placement.total_cents,
                **({"adjusted_from_cents": placement.adjusted_from_cents} if placement.adjusted_from_cents else {}),
                "replayed": False,
            }
            results.append(accepted)
            if key is not None:
                seen[key] = (print_, accepted)
                to_keep.append((key, print_, accepted))
        if events:
            expected = coup.version
            coup.version = expected + len(events)
            copied = _copy(rows)  # PostgreSQL: COPY; else with the append, as a single placement
            cmd.append(
                stream=coup.stream,
                expected_version=expected,
                correlation_id=str(coup.id),
                events=events,
                also=([] if copied else [rawsql.insert(rows)]) + [rawsql.update(coup, ["version"])],
                tip=first.tip,
            )
        if placer is not None and any(r["status"] == "accepted" and not r["replayed"] for r in results):
            projections_after_commit()  # the inner commands appended: the outer one made none
            coup.refresh_from_db(fields=["version"])
        position = cmd.appended[0].position if cmd.appended else None
        records = [
            IdempotencyRecord(key=_stored(coup.id, key), fingerprint=p, result=r, position=position)
            for key, p, r in to_keep
        ]
        if records and not _copy(records):
            IdempotencyRecord.objects.bulk_create(records)
        for exc, key in refusals:
            with transaction.atomic():
                bet_refusal_record(exc, actor=actor, idempotency_key=f"bet:{coup.id}:{key}" if key else None)
        accepted_count = sum(1 for r in results if r["status"] == "accepted")
        return cmd.finish(
            {
                "round": str(coup.id),
                "version": coup.version,
                "accepted": accepted_count,
                "refused": len(results) - accepted_count,
                "results": results,
            }
        )


class _KeyReused(InvalidInput):
    code = "idempotency_key_reused"


def _stored(round_id: object, key: str) -> str:
    return f"bet:{round_id}:{key}"  # bet_keys.bet_key's form, the key already checked


def _stored_keys(round_id: object, bets: list) -> dict[str, tuple[str, dict]]:
    """The bets of this batch already placed under their own key: ``{key: (fingerprint, result)}``."""
    wanted = {
        _stored(round_id, item["key"]): item["key"]
        for item in bets
        if isinstance(item, dict) and idempotency_key_valid(item.get("key")) and len(item["key"]) <= KEY_MAX
    }
    if connection.vendor == "postgresql":  # one prepared statement, not the ORM's IN list of 1,000
        sql = "SELECT key, fingerprint, result FROM ledger_idempotencyrecord WHERE key = ANY(%s)"
        rows = rawsql.fetch_prepared(sql, [list(wanted)])
        found = [(k, p, r if isinstance(r, dict) else loads(r)) for k, p, r in rows]  # jsonb comes as its text
    else:
        found = IdempotencyRecord.objects.filter(key__in=list(wanted)).values_list("key", "fingerprint", "result")
    return {wanted[k]: (p, r) for k, p, r in found}


def _check_shape(item: object, fields: frozenset[str]) -> None:
    if not isinstance(item, dict):
        raise InvalidInput(f"a bet is an object of {', '.join(sorted(fields))}", field="bet")
    unknown = set(item) - fields
    if unknown:
        raise InvalidInput(f"unknown field {sorted(unknown)[0]!r} in a bet", field=sorted(unknown)[0])
    key = item.get("key")
    if key is not None and not (idempotency_key_valid(key) and len(key) <= KEY_MAX):
        raise InvalidInput(f"a bet's key is 1 to {KEY_MAX} characters, without NUL", field="key")
    patron = item.get("patron")
    if not isinstance(patron, str) or not re.fullmatch(CODE_PATTERN, patron):
        raise InvalidInput("patron is a code (1 to 20 ASCII letters or digits)", field="patron")


def _copy(objs: list) -> bool:
    """COPY ``objs`` (new instances of one model, keys set) into its table on PostgreSQL, values
    as ``save()`` would write them (JSON as text, ``auto_now_add`` now); False elsewhere (the
    caller inserts them its usual way). A batch's thousand rows went in as one multi-row
    INSERT bound client-side, a tenth of the batch's time."""
    if connection.vendor != "postgresql" or not objs:
        return False
    meta = objs[0]._meta
    fields = meta.concrete_fields
    json_fields = {f.attname for f in fields if isinstance(f, JSONField)}
    stamped = {f.attname for f in fields if getattr(f, "auto_now_add", False)}
    now = timezone.now()
    names = ", ".join(f'"{field.column}"' for field in fields)
    with connection.cursor() as cursor, cursor.copy(f'COPY "{meta.db_table}" ({names}) FROM STDIN') as copy:
        for obj in objs:
            row = []
            for field in fields:
                value = obj.__dict__[field.attname]
                if field.attname in stamped:
                    value = now
                    setattr(obj, field.attname, now)
                elif value is not None and field.attname in json_fields:
                    value = canonical(value, plain=True)  # orjson; the standard library for what it refuses
                row.append(value)
            copy.write_row(row)
            obj._state.adding = False
    return True


def _card_place(cmd, placer: tuple, coup, item: dict, actor: str) -> dict:
    """One card game's bet through its single service inside ``cmd`` (a savepoint: a refusal
    leaves nothing); the service's own answer."""
    service, fields = placer
    for name in sorted(fields - {"seated"}):
        if name not in item:
            raise InvalidInput("this field is required", field=name)
    for name in ("stake_cents", "ante_cents", "box"):
        if name in item and (type(item[name]) is not int or item[name] <= 0):
            raise InvalidInput(f"{name} is a positive whole number", field=name)
    if "bet" in item and not isinstance(item["bet"], str):
        raise InvalidInput("bet is the name of a chance", field="bet")
    if "seated" in item and not isinstance(item["seated"], bool):
        raise InvalidInput("seated is true or false", field="seated")
    with within(cmd):
        return service(round_id=str(coup.id), actor=actor, **{k: item[k] for k in fields if k in item})


def _card_placer(game: str) -> tuple | None:
    """``(service, fields)``: a card game's single bet service and the fields of a batch's bet
    it takes (``GameSpec.batch_bet``, ``batch_fields``); None for a game whose batch is not
    placed bet by bet through its service."""
    played = spec(game)
    service = played.service("batch_bet")
    return None if service is None else (service, played.batch_fields)
