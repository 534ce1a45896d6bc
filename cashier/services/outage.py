"""Outage mode, the manual fallback (French rule OH 3772-11-12 as the site applies it).

- ``outage_declare``: an outage period, with its start, its end when declared after recovery
  (the system was down) or none while it lasts (only part of it is down: it is declared at
  once and ended by ``outage_end``), its scope (the whole site, some tables, the cage), its
  reason; one paper form per table in scope and one for the cage, each with its serial
  (``OUT1-R1``, ``OUT1-CAGE``), printed ahead as blank forms (``cashier.outage_forms_pdf``).
- ``paper_coup_enter``: one coup written on a table's form, entered after recovery through the
  same services as a live coup (``games.services``), as a later entry (``ledger.later_entries``):
  its events carry the paper time as ``occurred_at`` and the flag ``later_entry`` (outage,
  form, who entered it and when, who approved it). It runs only once a second person signed
  from his own login (the act ``paper_coup_enter`` of ``approvals``: the enterer never approves
  his own); ``PaperLineEntered`` on the outage's stream then counts it on its form.
- ``paper_cage_enter``: a chip sale or redemption written on the cage's form, entered through
  the cage's own services the same way (a cage supervisor approves it).
- ``paper_slip_enter``: a fill or a credit written on a table's form, entered through the slip
  services (request, issue, accept) in the names of those who signed the paper (a cage
  supervisor approves it).
- ``paper_buy_in_enter``: a cash buy-in at a table written on its form, entered through the
  table's own buy-in service (``games.services.tables.table_buy_in``) the same way.
- ``paper_marker_enter``: a marker issued at a table and written on its form, entered through
  the credit service (``cashier.services.credit.marker_issue``) in the name of the pit boss who
  signed it on paper, against the patron's credit line, the same way.
- ``paper_form_complete``: the form's every line is entered (the number of lines on the paper,
  checked against the approved entries): ``PaperFormEntered``. Until each form of an outage is
  entered, its gaming day can be neither closed nor sealed (``ledger.outage_forms``).
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.utils import timezone

from basis.money import format_cents
from core.denominations import chip_denominations, count_total
from games.catalog import spec
from games.models import Table
from games.services.bets import bet_place
from games.services.rounds import round_close_bets, round_open, round_record_result
from games.services.tables import table_buy_in
from ledger import later_entries, outage_forms
from ledger.commands import ledger_command, within
from ledger.errors import InvalidInput, NotFound, StateConflict
from ledger.store import NewEvent, stream_version
from staff.roles import PENDING_SIGNATURE, Role, RoleRequired, has_role, require_distinct, require_role

from .cage import chips_purchase, chips_redeem
from .credit import TABLE_ISSUERS, marker_issue
from .slips import slip_accept, slip_issue, slip_request

SCOPES = ("site", "tables", "cage")
DECLARERS = (Role.PIT_BOSS, Role.CAGE_SUPERVISOR, Role.ADMIN)
ENTERERS = (Role.PIT_BOSS, Role.CAGE_SUPERVISOR)
CAGE_FORM = "CAGE"
MAX_REASON = 500
MAX_BETS_A_COUP = 200


def _moment(value: object, field: str) -> datetime:
    """An aware datetime from a datetime or ISO 8601 text; 400 naming ``field`` otherwise."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise InvalidInput("a date and time, ISO 8601 with its zone", field=field) from None
    if not isinstance(value, datetime) or value.utcoffset() is None:
        raise InvalidInput("a date and time, ISO 8601 with its zone", field=field)
    return value.astimezone(UTC)


def _not_future(moment: datetime, field: str) -> None:
    if moment > timezone.now():
        raise InvalidInput("this time is still to come: an outage is declared once it began", field=field)


def _found(outage: object) -> outage_forms.Outage:
    found = outage_forms.outage(outage) if isinstance(outage, str) else None
    if found is None:
        raise NotFound(f"no outage {outage!r}", field="outage")
    return found


def _summary(found: outage_forms.Outage) -> dict:
    return {
        "outage": found.id,
        "started_at": found.started_at.isoformat(),
        "ended_at": found.ended_at.isoformat() if found.ended_at else None,
        "scope": found.scope,
        "reason": found.reason,
        "forms": [
            {
                **each,
                "lines_entered": len(found.lines.get(each["form"], [])),
                "entered": each["form"] in found.entered,
            }
            for each in found.forms
        ],
        "unentered": found.unentered(),
    }


def outage_summary(outage: str) -> dict:
    """The outage ``outage`` with its forms: ``{"outage", "started_at", "ended_at", "scope",
    "reason", "forms": [{"form", "place", "table", "lines_entered", "entered"}], "unentered"}``."""
    return _summary(_found(outage))


def outage_list() -> list[dict]:
    """Every outage declared, the latest first (``outage_summary`` each)."""
    return [_summary(each) for each in reversed(outage_forms.outages())]


def outage_declare(
    *,
    started_at: object,
    reason: object,
    actor: str,
    ended_at: object = None,
    scope: str = "site",
    tables: object = None,
    idempotency_key: str | None = None,
) -> dict:
    """Declare an outage period: ``OutageDeclared`` on ``outage/<id>`` with its paper forms.

    ``scope``: ``site`` (every open table and the cage), ``tables`` (the tables named in
    ``tables``; no cage form) or ``cage`` (the cage's form only). ``ended_at``: given when
    declared after recovery; left out while it lasts (``outage_end`` then). Returns
    ``outage_summary``. ``InvalidInput`` (400) naming the field: a time not ISO 8601 with its
    zone or still to come, an end before the start, an unknown scope or table, no reason;
    ``RoleRequired`` (403) unless a pit boss, cage supervisor or admin.
    """
    require_role(actor, *DECLARERS, step="declaring an outage")
    start = _moment(started_at, "started_at")
    _not_future(start, "started_at")
    end = None
    if ended_at is not None:
        end = _moment(ended_at, "ended_at")
        _not_future(end, "ended_at")
        if end <= start:
            raise InvalidInput("the outage ends after it starts", field="ended_at")
    if not isinstance(reason, str) or not reason.strip() or len(reason) > MAX_REASON:
        raise InvalidInput(f"say why the system was down (1 to {MAX_REASON} characters)", field="reason")
    if scope not in SCOPES:
        raise InvalidInput(f"the scope is one of {', '.join(SCOPES)}", field="scope")
    if scope == "tables" and (
        not isinstance(tables, list) or not tables or not all(isinstance(t, str) for t in tables)
    ):
        raise InvalidInput("name the tables the outage took down", field="tables")
    request = {
        "op": "outage_declare",
        "started_at": start.isoformat(),
        "ended_at": end.isoformat() if end else None,
        "scope": scope,
        "tables": tables,
        "reason": reason,
    }
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        if scope == "site":
            codes = list(Table.objects.filter(state=Table.State.OPEN).order_by("code").values_list("code", flat=True))
        elif scope == "tables":
            known = set(Table.objects.filter(code__in=tables).values_list("code", flat=True))
            unknown = [code for code in tables if code not in known]
            if unknown:
                raise InvalidInput(f"no table {', '.join(unknown)}", field="tables")
            codes = sorted(set(tables))
        else:
            codes = []
        number = len(outage_forms.outages()) + 1
        outage_id = f"OUT{number}"
        forms = [{"form": f"{outage_id}-{code}", "place": "table", "table": code} for code in codes]
        if scope in ("site", "cage"):
            forms.append({"form": f"{outage_id}-{CAGE_FORM}", "place": "cage", "table": ""})
        stream = outage_forms.stream_of(outage_id)
        cmd.append(
            stream=stream,
            expected_version=stream_version(stream),
            correlation_id=outage_id,
            events=[
                NewEvent(
                    outage_forms.DECLARED,
                    {
                        "outage": outage_id,
                        "started_at": start.isoformat(),
                        "ended_at": end.isoformat() if end else None,
                        "scope": scope,
                        "reason": reason.strip(),
                        "forms": forms,
                    },
                )
            ],
        )
        return cmd.finish(_summary(outage_forms.outage(outage_id)))


def outage_end(*, outage: str, ended_at: object, actor: str, idempotency_key: str | None = None) -> dict:
    """End an outage declared while it lasted: ``OutageEnded``. 409 when it has ended already;
    400 (``ended_at``) for a time not after its start or still to come."""
    require_role(actor, *DECLARERS, step="ending an outage")
    end = _moment(ended_at, "ended_at")
    _not_future(end, "ended_at")
    request = {"op": "outage_end", "outage": outage, "ended_at": end.isoformat()}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        found = _found(outage)
        if not found.ongoing:
            raise StateConflict(f"outage {found.id} ended at {found.ended_at.isoformat()} already", field="outage")
        if end <= found.started_at:
            raise InvalidInput("the outage ends after it starts", field="ended_at")
        stream = outage_forms.stream_of(found.id)
        cmd.append(
            stream=stream,
            expected_version=stream_version(stream),
            correlation_id=found.id,
            events=[NewEvent(outage_forms.ENDED, {"outage": found.id, "ended_at": end.isoformat()})],
        )
        return cmd.finish(_summary(outage_forms.outage(found.id)))


def _open_form(outage: object, form: object) -> tuple[outage_forms.Outage, dict]:
    found = _found(outage)
    entry = found.form(form) if isinstance(form, str) else None
    if entry is None:
        raise NotFound(f"outage {found.id} has no form {form!r}", field="form")
    if entry["form"] in found.entered:
        raise StateConflict(f"form {entry['form']} is entered already: it takes no more lines", field="form")
    return found, entry


def _mark(found, form: str, moment, *, actor: str, entered, approver: str) -> later_entries.LaterEntry:
    """What stamps each event a paper line's entry appends: the paper time, the outage and form,
    who entered it and when, who approved it."""
    return later_entries.LaterEntry(
        occurred_at=moment,
        outage=found.id,
        form=form,
        entered_by=actor,
        entered_at=entered.isoformat(),
        approved_by=approver,
    )


def _within_outage(found: outage_forms.Outage, moment: datetime) -> None:
    """400 (``occurred_at``) for a paper time outside the outage's window."""
    end = found.ended_at or timezone.now()
    if not found.started_at <= moment <= end:
        raise InvalidInput(
            f"the paper time {moment.isoformat()} is outside outage {found.id} "
            f"({found.started_at.isoformat()} to {end.isoformat()})",
            field="occurred_at",
        )


def _line_entered(cmd, found, entry: dict, line: dict, *, moment, entered, actor: str, approver: str) -> dict:
    """Record a paper line entered: ``line`` (what it holds) with the outage, its form, its number
    on the form, the paper's time, when it was entered, by whom and who approved it, as
    ``PaperLineEntered`` on the outage's stream; ``cmd`` finishes with it (the entry's result)."""
    result = {
        "outage": found.id,
        "form": entry["form"],
        "line": len(found.lines.get(entry["form"], [])) + 1,
        **line,
        "occurred_at": moment.isoformat(),
        "entered_at": entered.isoformat(),
        "entered_by": actor,
        "approved_by": approver,
    }
    stream = outage_forms.stream_of(found.id)
    cmd.append(
        stream=stream,
        expected_version=stream_version(stream),
        correlation_id=found.id,
        events=[NewEvent(outage_forms.LINE_ENTERED, result)],
    )
    return cmd.finish(result)


def paper_coup_enter(
    *,
    outage: str,
    form: str,
    occurred_at: object,
    bets: object,
    number: object,
    entered_at: object,
    approver: str,
    actor: str,
    idempotency_key: str | None = None,
) -> dict:
    """Enter one roulette coup written on form ``form`` of ``outage`` at ``occurred_at`` (the
    paper's time, inside the outage): opened, its ``bets`` placed (each ``{"patron",
    "stake_cents", "bet" | "announce", "chips"?}``, as ``bet_place`` takes them), betting closed
    and the winning ``number`` recorded and settled, all through the roulette services, as a
    later entry entered by ``actor`` at ``entered_at`` and approved by ``approver``; then
    ``PaperLineEntered``. All or nothing: a bet refused refuses the whole entry.

    Returns ``{"outage", "form", "line", "round", "table", "number", "occurred_at",
    "entered_at", "entered_by", "approved_by", "staked_cents", "returned_cents",
    "house_win_cents"}``. ``InvalidInput`` (400) naming the field (a paper time outside the
    outage, a cage form, a table that is not roulette, a bad bet), ``NotFound`` (404: outage,
    form), ``StateConflict`` (409: the form is entered already, the table is closed or has a
    coup in play), ``RoleRequired`` (403: the approver is the enterer or holds no supervisor's role).
    """
    require_role(actor, *ENTERERS, step="entering a paper record")
    require_role(approver, *ENTERERS, step="approving a later entry")
    require_distinct("approving a later entry", approver, [("enterer", actor)])
    moment = _moment(occurred_at, "occurred_at")
    entered = _moment(entered_at, "entered_at")
    if not isinstance(bets, list) or len(bets) > MAX_BETS_A_COUP:
        raise InvalidInput(f"the coup's bets as a list (at most {MAX_BETS_A_COUP})", field="bets")
    if any(not isinstance(each, dict) for each in bets):
        raise InvalidInput("each bet is {patron, stake_cents, bet | announce, chips?}", field="bets")
    request = {
        "op": "paper_coup_enter",
        "outage": outage,
        "form": form,
        "occurred_at": moment.isoformat(),
        "bets": bets,
        "number": number,
    }
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        found, entry = _open_form(outage, form)
        if entry["place"] != "table":
            raise InvalidInput(f"{entry['form']} is the cage's form: a coup is entered on a table's", field="form")
        _within_outage(found, moment)
        table = entry["table"]
        game = Table.objects.filter(code=table).values_list("game", flat=True).first()
        if game is None or not spec(game).layout_bets:
            raise InvalidInput(
                f"{table}'s coups are entered at its terminal for now: a paper coup is entered at roulette",
                field="form",
            )
        mark = _mark(found, entry["form"], moment, actor=actor, entered=entered, approver=approver)
        with within(cmd), later_entries.later_entry(mark):
            coup = round_open(table=table, actor=actor)["round"]
            for index, each in enumerate(bets):
                try:
                    bet_place(
                        round_id=coup,
                        patron=each.get("patron"),
                        stake_cents=each.get("stake_cents"),
                        bet=each.get("bet"),
                        announce=each.get("announce"),
                        chips=each.get("chips", "value"),
                        actor=actor,
                    )
                except InvalidInput as exc:
                    raise InvalidInput(exc.message, field=f"bets[{index}].{exc.field or 'bet'}") from exc
            round_close_bets(round_id=coup, actor=actor)
            settled = round_record_result(round_id=coup, number=number, actor=actor)
        line = len(found.lines.get(entry["form"], [])) + 1
        stream = outage_forms.stream_of(found.id)
        result = {
            "outage": found.id,
            "form": entry["form"],
            "line": line,
            "round": coup,
            "table": table,
            "number": settled["result"]["number"],
            "occurred_at": moment.isoformat(),
            "entered_at": entered.isoformat(),
            "entered_by": actor,
            "approved_by": approver,
            "staked_cents": settled["staked_cents"],
            "returned_cents": settled["returned_cents"],
            "house_win_cents": settled["house_win_cents"],
        }
        cmd.append(
            stream=stream,
            expected_version=stream_version(stream),
            correlation_id=found.id,
            events=[
                NewEvent(
                    outage_forms.LINE_ENTERED, {k: v for k, v in result.items() if k != "outage"} | {"outage": found.id}
                )
            ],
        )
        return cmd.finish(result)


def paper_form_complete(
    *, outage: str, form: str, lines: object, actor: str, idempotency_key: str | None = None
) -> dict:
    """Declare form ``form`` of ``outage`` wholly entered: it held ``lines`` records (0: blank),
    each entered and approved. ``PaperFormEntered``. 409 while the outage is going on, when the
    form is entered already, or when the approved entries are not ``lines`` (an entry still
    waiting for its approval is not one); 400 (``lines``) for a count that is not a whole number."""
    require_role(actor, *ENTERERS, step="completing a paper form")
    if type(lines) is not int or lines < 0:
        raise InvalidInput("the number of lines written on the form, a whole number", field="lines")
    request = {"op": "paper_form_complete", "outage": outage, "form": form, "lines": lines}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        found, entry = _open_form(outage, form)
        if found.ongoing:
            raise StateConflict(f"outage {found.id} is still going on: end it first", field="outage")
        entered = len(found.lines.get(entry["form"], []))
        if entered != lines:
            raise StateConflict(
                f"form {entry['form']} holds {lines} lines and {entered} are entered and approved"
                + ("; the others wait to be entered or approved" if entered < lines else ""),
                field="lines",
            )
        stream = outage_forms.stream_of(found.id)
        cmd.append(
            stream=stream,
            expected_version=stream_version(stream),
            correlation_id=found.id,
            events=[NewEvent(outage_forms.FORM_ENTERED, {"outage": found.id, "form": entry["form"], "lines": lines})],
        )
        return cmd.finish(_summary(outage_forms.outage(found.id)))


def _one_line(
    *,
    op: str,
    place: str,
    what: str,
    outage: str,
    form: str,
    occurred_at: object,
    entered_at: object,
    fields: dict,
    enterers: tuple,
    approvers: tuple,
    approver: str,
    actor: str,
    idempotency_key: str | None,
    enter,
) -> dict:
    """The frame of a paper line entered through one service: ``actor`` (one of ``enterers``)
    enters, ``approver`` (one of ``approvers``, never the enterer) approved it; the form must be
    ``place``'s (``"table"`` or ``"cage"``: 400 on ``form`` naming ``what`` otherwise), the paper
    time inside the outage; ``enter(entry)`` runs the service under the later-entry stamp and
    returns what the line holds; then ``PaperLineEntered``. ``fields``: the request's own."""
    require_role(actor, *enterers, step="entering a paper record")
    require_role(approver, *approvers, step="approving a later entry")
    require_distinct("approving a later entry", approver, [("enterer", actor)])
    moment = _moment(occurred_at, "occurred_at")
    entered = _moment(entered_at, "entered_at")
    request = {"op": op, "outage": outage, "form": form, "occurred_at": moment.isoformat(), **fields}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        found, entry = _open_form(outage, form)
        if entry["place"] != place:
            whose = "the cage's form" if entry["place"] == "cage" else f"table {entry['table']}'s form"
            where = "its table's" if place == "table" else "the cage's own"
            raise InvalidInput(f"{entry['form']} is {whose}: {what} is written on {where}", field="form")
        _within_outage(found, moment)
        mark = _mark(found, entry["form"], moment, actor=actor, entered=entered, approver=approver)
        with within(cmd), later_entries.later_entry(mark):
            line = enter(entry)
        return _line_entered(cmd, found, entry, line, moment=moment, entered=entered, actor=actor, approver=approver)


CAGE_TRANSACTIONS = {"purchase": chips_purchase, "redemption": chips_redeem}
CAGE_ENTERERS = (Role.CASHIER, Role.CAGE_SUPERVISOR)


def paper_cage_enter(
    *,
    outage: str,
    form: str,
    occurred_at: object,
    transaction: object,
    patron: object,
    amount_cents: object,
    entered_at: object,
    approver: str,
    actor: str,
    idempotency_key: str | None = None,
) -> dict:
    """Enter one chip sale (``transaction`` ``purchase``) or redemption (``redemption``)
    written on the cage's form ``form`` of ``outage`` at ``occurred_at`` (inside the outage),
    through the cage's own service (``chips_purchase``, ``chips_redeem``: the enterer's window),
    as a later entry entered by ``actor`` at ``entered_at`` and approved by ``approver`` (a cage
    supervisor, never the enterer); then ``PaperLineEntered``.

    Returns ``{"outage", "form", "line", "transaction", "patron", "amount_cents", "occurred_at",
    "entered_at", "entered_by", "approved_by"}``. ``InvalidInput`` (400) naming the field (a
    table's form, a paper time outside the outage, an unknown transaction), ``NotFound``,
    ``StateConflict`` (409: form entered already, no window of the enterer's open),
    ``RoleRequired`` (403), and what the cage's service refuses."""
    if transaction not in CAGE_TRANSACTIONS:
        raise InvalidInput(f"the transaction is one of {', '.join(CAGE_TRANSACTIONS)}", field="transaction")

    def enter(entry: dict) -> dict:
        done = CAGE_TRANSACTIONS[transaction](patron=patron, amount_cents=amount_cents, actor=actor)
        return {"transaction": transaction, "patron": done["patron"], "amount_cents": done["amount_cents"]}

    return _one_line(
        op="paper_cage_enter",
        place="cage",
        what="a chip sale or redemption",
        outage=outage,
        form=form,
        occurred_at=occurred_at,
        entered_at=entered_at,
        fields={"transaction": transaction, "patron": patron, "amount_cents": amount_cents},
        enterers=CAGE_ENTERERS,
        approvers=(Role.CAGE_SUPERVISOR,),
        approver=approver,
        actor=actor,
        idempotency_key=idempotency_key,
        enter=enter,
    )


# Who signs each step of a slip on paper, and the roles that step needs (``cashier.services.slips``):
# a fill is accepted at the table (a pit boss or its dealer), a credit counted in at the cage.
SLIP_KINDS = ("fill", "credit")
SLIP_SIGNERS = ("requested_by", "issued_by", "runner", "accepted_by")
_SIGNER_ROLES = {
    "requested_by": (Role.PIT_BOSS,),
    "issued_by": (Role.CASHIER, Role.CAGE_SUPERVISOR),
    "runner": (Role.RUNNER,),
    "approved_by": (Role.CAGE_SUPERVISOR,),
}
_ACCEPTORS = {"fill": (Role.PIT_BOSS, Role.DEALER), "credit": (Role.CASHIER, Role.CAGE_SUPERVISOR)}


def _paper_signers(kind: str, signers: object) -> dict[str, str]:
    """The paper's signers, each holding the role his step needs: ``InvalidInput`` (400) naming
    ``signers.<who>`` otherwise (the paper names someone who could not have signed it)."""
    if not isinstance(signers, dict):
        raise InvalidInput(
            "the signers on the paper: {requested_by, issued_by, runner, accepted_by, approved_by?}", field="signers"
        )
    named = {}
    for who in (*SLIP_SIGNERS, "approved_by"):
        name = signers.get(who)
        if who == "approved_by" and name in (None, ""):
            continue
        if not isinstance(name, str) or not name.strip() or name.strip() == PENDING_SIGNATURE:
            raise InvalidInput("the username the paper names here", field=f"signers.{who}")
        roles = _ACCEPTORS[kind] if who == "accepted_by" else _SIGNER_ROLES[who]
        if not has_role(name.strip(), *roles):
            wanted = " or ".join(str(r) for r in roles)
            raise InvalidInput(
                f"{name.strip()} does not hold the role {wanted} this signature needs", field=f"signers.{who}"
            )
        named[who] = name.strip()
    return named


def _as_signed(who: str, step):
    """Run one slip step in the name of the paper's signer ``who``: a segregation clash (the
    same person at two steps) is the paper's fault, 400 naming ``signers.<who>``."""
    try:
        return step()
    except RoleRequired as exc:
        raise InvalidInput(exc.message, field=f"signers.{who}") from exc


def paper_slip_enter(
    *,
    outage: str,
    form: str,
    occurred_at: object,
    kind: object,
    denominations: object,
    signers: object,
    entered_at: object,
    approver: str,
    actor: str,
    amount_cents: object = None,
    idempotency_key: str | None = None,
) -> dict:
    """Enter one fill or credit (``kind``) written on table form ``form`` of ``outage`` at
    ``occurred_at`` (inside the outage): ``denominations`` (``{"<cents>": pieces}``) requested,
    issued and accepted through the slip services (``slip_request``, ``slip_issue``,
    ``slip_accept``, the dealer's or the cage's count being the slip's), each step in the name of
    the one who signed it on paper (``signers``: ``requested_by`` a pit boss, ``issued_by`` a
    cashier or cage supervisor, from his window still open, ``runner``, ``accepted_by`` a pit
    boss or the dealer for a fill, a cashier or cage supervisor counting a credit in at the cage,
    and ``approved_by``, the cage supervisor who signed a large fill), so the ledger gets a live
    slip's events and postings, each stamped as a later entry entered by ``actor`` (a pit boss
    or cage supervisor) at ``entered_at`` and approved by ``approver`` (a cage supervisor,
    never the enterer); then ``PaperLineEntered``. All or nothing. ``amount_cents``, when given:
    the total written on the paper, which the count must make (400 ``amount_cents`` otherwise).

    Returns ``{"outage", "form", "line", "kind", "serial", "table", "amount_cents",
    "denominations", "signers", "occurred_at", "entered_at", "entered_by", "approved_by"}``.
    ``InvalidInput`` (400) naming the field (a paper time outside the outage, the cage's form,
    an unknown kind, a signer without the role his step needs or signing two steps the slip
    keeps apart: ``signers.<who>``; a bad count), ``NotFound`` (404), ``StateConflict`` (409:
    the form entered already, the table closed, the issuer's or the credit's receiver's window
    not open), ``InsufficientChips`` (400: a tray or window short of the chips), ``RoleRequired``
    (403: the enterer or the approver without his role, or the same person)."""
    require_role(actor, *ENTERERS, step="entering a paper record")
    require_role(approver, Role.CAGE_SUPERVISOR, step="approving a fill's or credit's later entry")
    require_distinct("approving a later entry", approver, [("enterer", actor)])
    moment = _moment(occurred_at, "occurred_at")
    entered = _moment(entered_at, "entered_at")
    if kind not in SLIP_KINDS:
        raise InvalidInput(f"the slip is one of {', '.join(SLIP_KINDS)}", field="kind")
    named = _paper_signers(kind, signers)
    counted, total = count_total(denominations, chip_denominations(), field="denominations")
    if amount_cents is not None and (type(amount_cents) is not int or amount_cents != total):
        raise InvalidInput(
            f"the count makes {format_cents(total)}, not the total written on the paper: count again",
            field="amount_cents",
        )
    request = {
        "op": "paper_slip_enter",
        "outage": outage,
        "form": form,
        "occurred_at": moment.isoformat(),
        "kind": kind,
        "denominations": counted,
        "signers": named,
    }
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        found, entry = _open_form(outage, form)
        if entry["place"] != "table":
            raise InvalidInput(f"{entry['form']} is the cage's form: a {kind} is written on its table's", field="form")
        _within_outage(found, moment)
        mark = _mark(found, entry["form"], moment, actor=actor, entered=entered, approver=approver)
        with within(cmd), later_entries.later_entry(mark):
            # The requester's role is checked above: what the request refuses is the second signature.
            slip = _as_signed(
                "approved_by",
                lambda: slip_request(
                    kind=kind,
                    table=entry["table"],
                    denominations=counted,
                    approver=named.get("approved_by"),
                    actor=named["requested_by"],
                ),
            )
            serial = slip["serial"]
            _as_signed(
                "issued_by" if named["issued_by"] == named["requested_by"] else "runner",
                lambda: slip_issue(kind=kind, serial=serial, runner=named["runner"], actor=named["issued_by"]),
            )
            _as_signed(
                "accepted_by",
                lambda: slip_accept(kind=kind, serial=serial, count=slip["denominations"], actor=named["accepted_by"]),
            )
        return _line_entered(
            cmd,
            found,
            entry,
            {
                "kind": kind,
                "serial": serial,
                "table": entry["table"],
                "amount_cents": slip["amount_cents"],
                "denominations": slip["denominations"],
                "signers": named,
            },
            moment=moment,
            entered=entered,
            actor=actor,
            approver=approver,
        )


def paper_buy_in_enter(
    *,
    outage: str,
    form: str,
    occurred_at: object,
    patron: object,
    amount_cents: object,
    entered_at: object,
    approver: str,
    actor: str,
    idempotency_key: str | None = None,
) -> dict:
    """Enter one cash buy-in written on table form ``form`` of ``outage`` at ``occurred_at``
    (inside the outage): ``patron`` changed ``amount_cents`` of cash for value chips at the
    table, the cash into its drop box, through the table's own service (``table_buy_in``: the
    same posting, the same AML screening), as a later entry entered by ``actor`` (a pit boss or
    cage supervisor) at ``entered_at`` and approved by ``approver`` (another pit boss or a cage
    supervisor); then ``PaperLineEntered``. All or nothing.

    Returns ``{"outage", "form", "line", "table", "patron", "amount_cents", "transaction",
    "occurred_at", "entered_at", "entered_by", "approved_by"}``. ``InvalidInput`` (400) naming
    the field (a paper time outside the outage, the cage's form, an amount that is not a
    positive whole number of cents), ``NotFound`` (404: outage, form, patron), ``StateConflict``
    (409: the form entered already, the table closed; an identity the AML rule needs and the
    registry lacks), ``InsufficientChips`` (400: the tray short), ``RoleRequired`` (403)."""

    def enter(entry: dict) -> dict:
        done = table_buy_in(code=entry["table"], patron=patron, amount_cents=amount_cents, actor=actor)
        return {
            "table": entry["table"],
            "patron": done["patron"],
            "amount_cents": done["amount_cents"],
            "transaction": done["transaction"],
        }

    return _one_line(
        op="paper_buy_in_enter",
        place="table",
        what="a buy-in",
        outage=outage,
        form=form,
        occurred_at=occurred_at,
        entered_at=entered_at,
        fields={"patron": patron, "amount_cents": amount_cents},
        enterers=ENTERERS,
        approvers=ENTERERS,
        approver=approver,
        actor=actor,
        idempotency_key=idempotency_key,
        enter=enter,
    )


def paper_marker_enter(
    *,
    outage: str,
    form: str,
    occurred_at: object,
    patron: object,
    amount_cents: object,
    issued_by: object,
    entered_at: object,
    approver: str,
    actor: str,
    idempotency_key: str | None = None,
) -> dict:
    """Enter one marker written on table form ``form`` of ``outage`` at ``occurred_at`` (inside
    the outage): ``patron`` signed a marker of ``amount_cents`` for value chips from the tray,
    the marker into the drop box, issued by ``issued_by`` (the pit boss who signed it on paper),
    through the credit service (``marker_issue``: against the patron's credit line as it stands
    when entered, the same postings and the next serial), as a later entry entered by ``actor``
    (a pit boss or cage supervisor) at ``entered_at`` and approved by ``approver`` (another pit
    boss or a cage supervisor); then ``PaperLineEntered``. All or nothing.

    Returns ``{"outage", "form", "line", "table", "serial", "patron", "amount_cents",
    "issued_by", "occurred_at", "entered_at", "entered_by", "approved_by"}``. ``InvalidInput``
    (400) naming the field (a paper time outside the outage, the cage's form, ``issued_by``
    without a pit boss's role, a bad amount), ``NotFound`` (404: outage, form, patron),
    ``StateConflict`` (409: the form entered already, the table closed, no credit line or the
    amount over what is left of it), ``InsufficientChips`` (400: the tray short),
    ``RoleRequired`` (403: the enterer or the approver without his role, or the same person)."""
    signer = issued_by.strip() if isinstance(issued_by, str) else ""
    if not signer or signer == PENDING_SIGNATURE or not has_role(signer, *TABLE_ISSUERS):
        raise InvalidInput("the pit boss who signed the marker on paper (his username)", field="issued_by")

    def enter(entry: dict) -> dict:
        issued = marker_issue(patron=patron, amount_cents=amount_cents, table=entry["table"], actor=signer)
        line = {"serial": issued["serial"], "patron": issued["patron"], "amount_cents": issued["amount_cents"]}
        return {"table": entry["table"], **line, "issued_by": signer}

    return _one_line(
        op="paper_marker_enter",
        place="table",
        what="a marker",
        outage=outage,
        form=form,
        occurred_at=occurred_at,
        entered_at=entered_at,
        fields={"patron": patron, "amount_cents": amount_cents, "issued_by": signer},
        enterers=ENTERERS,
        approvers=ENTERERS,
        approver=approver,
        actor=actor,
        idempotency_key=idempotency_key,
        enter=enter,
    )
