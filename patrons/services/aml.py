"""Anti-money-laundering thresholds on cash transactions, per jurisdiction.

Defaults are France's (Code monétaire et financier L561-13 and R561-16, the EU directive
2015/849 art. 11(d) for gambling services): settings ``AML_*`` in cents of the casino currency.

Every cash transaction of a patron (``patrons.visits.CASH_EVENTS``) — cash in: a chip purchase,
a cash buy-in at a table, a front money deposit, a marker paid in cash; cash out: a redemption,
a front money withdrawal — is screened by ``screen_cash`` inside the same command, after its
event is appended, against the patron's totals for that gaming day read from the ledger (so
the totals include it; cash in and cash out are totalled apart, every kind together):

- **identity** (``AML_IDENTITY_THRESHOLD_CENTS``, 2,000 EUR): a transaction of that amount or
  more, or one that brings the day's total in the same direction to it or more, needs the
  patron's identity on file (a name and an identity document in the patron registry). Without
  it the command is refused (``IdentityRequired``, HTTP 409, naming the threshold) and rolled
  back; the refusal itself is appended afterwards, in its own transaction, as
  ``AmlTransactionRefused`` (``records_refusals``). With it, ``AmlIdentityChecked`` records the
  decision.
- **multiple-transaction log** (``AML_LOG_THRESHOLD_CENTS``, 3,000 EUR): a transaction of that
  amount or more appends ``AmlTransactionLogged``.
- **report** (``AML_REPORT_THRESHOLD_CENTS``, 10,000 EUR): the transaction that takes the day's
  total in one direction over it appends ``AmlAggregateFlagged`` (once per direction and day).

``AML_BASIS`` chooses what "the day's total" is: ``gaming_day`` (the US rules, 31 CFR
1021.313: per gaming day) or ``visit`` (the French rule counts chip exchanges per séance: the
patron's visit, ``patrons.visits``: exchanges less than ``AML_VISIT_GAP_HOURS`` apart). Under
``visit`` the identity and report thresholds apply to the visit's total in one direction; each
decision carries ``basis``, ``day_total_cents`` and, under ``visit``, ``visit_total_cents`` and
``visit_started_at`` (UTC). Structuring just under the identity threshold on repeated visits is
listed by ``patrons.structuring``.

Decisions go on stream ``aml/<patron code>`` and name the patron by code only. The shared
``anon`` patron stands for every unrated stranger: its transactions are not one person's, so
only the single-transaction identity rule applies to it (2,000 EUR or more is refused: register
the patron first); aggregation needs a patron code per person.
"""

import functools
from dataclasses import dataclass
from datetime import date, datetime

from django.conf import settings
from django.utils import timezone

from basis.money import format_cents
from ledger.accounts import ANONYMOUS_PATRON
from ledger.commands import Command, ledger_command
from ledger.errors import Conflict, InvalidInput, NotFound
from ledger.models import Event, Posting
from ledger.store import NewEvent, stream_version
from staff.roles import Role, require_role

from ..documents import document_key
from ..models import Patron
from ..names import name_key
from ..selectors import patron_get
from ..visits import CASH_EVENTS, IN, OUT, aml_basis, current_visit, patron_cash_accounts, patron_cash_rows
from .patrons import check_document_free, identity_digests

# What the patron was doing, for a refusal's words, by channel (``patrons.visits.CASH_EVENTS``).
VERBS = {
    "cage_purchase": "buy chips for",
    "table_buy_in": "buy chips for",
    "front_money_deposit": "deposit front money for",
    "marker_payment": "pay markers in cash for",
    "marker_payment_at_table": "pay markers in cash for",
    "cage_redemption": "redeem chips for",
    "foreign_exchange": "exchange foreign banknotes worth",
    "front_money_withdrawal": "withdraw front money for",
}
DECISION_EVENTS = ("AmlIdentityChecked", "AmlTransactionLogged", "AmlAggregateFlagged", "AmlTransactionRefused")


@dataclass(frozen=True)
class Thresholds:
    """A jurisdiction's thresholds, in cents: identity at or above, log at or above, report above."""

    jurisdiction: str
    identity_cents: int
    log_cents: int
    report_cents: int

    @classmethod
    def from_settings(cls) -> "Thresholds":
        return cls(
            jurisdiction=settings.AML_JURISDICTION,
            identity_cents=settings.AML_IDENTITY_THRESHOLD_CENTS,
            log_cents=settings.AML_LOG_THRESHOLD_CENTS,
            report_cents=settings.AML_REPORT_THRESHOLD_CENTS,
        )


class IdentityRequired(Conflict):
    """A cash transaction at or over the identity threshold for a patron without identity (HTTP 409)."""

    code = "aml_identity_required"

    def __init__(self, message: str, *, decision: dict, actor: str, recordable: bool = True):
        super().__init__(message, field="patron")
        self.decision = decision
        self.actor = actor
        # False for the shared anonymous patron: no identity can be recorded for it, the person
        # has to be registered as a patron of his own.
        self.recordable = recordable


def identity_on_file(patron: Patron) -> bool:
    """A name and an identity document are recorded for the patron (never for the shared ``anon``)."""
    return (
        patron.code != ANONYMOUS_PATRON
        and patron.kind == Patron.Kind.IDENTIFIED
        and bool(patron.name.strip())
        and bool(document_key(patron.document))  # letters or digits, not blanks, dashes or invisible characters
    )


def cash_day_totals(patron: str, day: date) -> dict:
    """``{"in": cents, "out": cents, "transactions": n}``: the patron's cash transactions of gaming
    ``day``, every kind (``patrons.visits.CASH_EVENTS``), cash in and cash out apart."""
    totals = {IN: 0, OUT: 0, "transactions": 0}
    # The patron's own accounts (indexed) from the day's first position on: each cash event
    # moves one of them by its amount. Filtering the day's events on data->patron would scan a
    # busy day.
    first = Event.objects.filter(gaming_day=day).order_by("position").values_list("position", flat=True).first()
    if first is None:
        return totals
    for _, type_, _, _, amount in patron_cash_rows(patron, event_id__gte=first, event__gaming_day=day):
        totals[CASH_EVENTS[type_][0]] += amount
        totals["transactions"] += 1
    return totals


def decisions_result(decisions: list[Event]) -> list[dict]:
    """The AML decisions a cash transaction brought, for its service's result (``aml``): each
    ``{"type", "threshold_cents", "amount_cents", "day_total_cents", "direction", "channel",
    "basis", …}`` as recorded, so the page that made it can say so to the cashier at once."""
    return [{"type": event.type, **event.data} for event in decisions]


def screen_cash(cmd: Command, *, patron: Patron, event: Event, table: str = "") -> list[Event]:
    """Apply the thresholds to the cash transaction ``event`` just appended by ``cmd`` for ``patron``.

    Appends the decisions (``AmlIdentityChecked``, ``AmlTransactionLogged``, ``AmlAggregateFlagged``)
    on ``aml/<code>`` and returns them. Raises ``IdentityRequired`` (409, rolls the command back).
    """
    rules = Thresholds.from_settings()
    direction, channel = CASH_EVENTS[event.type]
    amount = event.data["amount_cents"]
    anonymous = patron.code == ANONYMOUS_PATRON
    basis = aml_basis()
    day_total = amount if anonymous else cash_day_totals(patron.code, event.gaming_day)[direction]
    visit = None if anonymous or basis != "visit" else current_visit(patron.code, event)
    # The thresholds apply to the basis's total: the gaming day's, or the visit's (séance).
    total = visit.total_cents(direction) if visit is not None else day_total
    decision = {
        "patron": patron.code,
        "gaming_day": event.gaming_day.isoformat(),
        "transaction": event.data.get("transaction", ""),
        "channel": channel,
        "direction": direction,
        "amount_cents": amount,
        "day_total_cents": day_total,
        "basis": basis,
        "jurisdiction": rules.jurisdiction,
        **({"table": table} if table else {}),
    }
    if visit is not None:
        decision |= {"visit_total_cents": total, "visit_started_at": visit.started_at.isoformat()}
    span = "in one visit" if visit is not None else "in one gaming day"
    decisions: list[NewEvent] = []
    if amount >= rules.identity_cents or total >= rules.identity_cents:
        verb = VERBS.get(channel, "buy chips for" if direction == IN else "redeem chips for")
        if anonymous:
            # No identity can be recorded for the shared patron: the person must be registered.
            raise IdentityRequired(
                f"the shared anonymous patron {patron.code} cannot {verb} {format_cents(amount)}: "
                f"{format_cents(rules.identity_cents)} or more needs a registered patron (AML identity threshold, "
                f"{rules.jurisdiction}). Register the person as a patron of his own with his name and identity "
                "document, then use his own patron code.",
                decision={**decision, "threshold_cents": rules.identity_cents},
                actor=cmd.actor,
                recordable=False,
            )
        if not identity_on_file(patron):
            raise IdentityRequired(
                f"patron {patron.code} has no identity on file: he cannot {verb} "
                f"{format_cents(rules.identity_cents)} or more {span} (AML identity threshold, {rules.jurisdiction}); "
                f"this transaction {format_cents(amount)}, "
                f"the {'visit' if visit is not None else 'day'}'s cash {direction} with it {format_cents(total)}. "
                "Record his name and identity document first.",
                decision={**decision, "threshold_cents": rules.identity_cents},
                actor=cmd.actor,
            )
        decisions.append(NewEvent("AmlIdentityChecked", {**decision, "threshold_cents": rules.identity_cents}))
    if amount >= rules.log_cents:
        decisions.append(NewEvent("AmlTransactionLogged", {**decision, "threshold_cents": rules.log_cents}))
    if not anonymous and total > rules.report_cents >= total - amount:
        decisions.append(NewEvent("AmlAggregateFlagged", {**decision, "threshold_cents": rules.report_cents}))
    if not decisions:
        return []
    stream = f"aml/{patron.code}"
    return cmd.append(
        stream=stream,
        expected_version=stream_version(stream),
        events=decisions,
        correlation_id=event.correlation_id,
        causation_id=str(event.position),
    )


def records_refusals(service):
    """Decorator for a cash service: a refusal by ``screen_cash`` is itself recorded.

    The refused command rolls back (nothing of it is kept); then ``AmlTransactionRefused`` is
    appended in a transaction of its own, and the refusal is raised to the caller.
    """

    @functools.wraps(service)
    def wrapper(*args, **kwargs):
        try:
            return service(*args, **kwargs)
        except IdentityRequired as refusal:
            stream = f"aml/{refusal.decision['patron']}"
            with ledger_command(actor=refusal.actor, request={"op": "aml_refusal", **refusal.decision}) as cmd:
                cmd.append(
                    stream=stream,
                    expected_version=stream_version(stream),
                    events=[NewEvent("AmlTransactionRefused", {**refusal.decision, "reason": refusal.message})],
                )
            raise

    return wrapper


def patron_identity_record(*, patron: str, name: str, document: str, actor: str) -> dict:
    """Record a patron's identity (name and identity document) in the registry, off the ledger.

    The one way a patron's identity changes after registration (the Django admin shows it
    read-only). Appends ``PatronIdentityRecorded`` on ``aml/<code>``: the patron's code and
    ``replaced`` (an identity was on file: a correction), ``name_digest`` and ``document_digest``
    (keyed: never the name or document themselves). Returns
    ``{"patron", "event"}``. Raises ``InvalidInput`` (blank name or document, a document another
    patron holds, or the shared ``anon`` patron: register the person instead), ``NotFound``,
    ``RoleRequired`` (403: needs cashier or cage supervisor).
    """
    require_role(actor, Role.CASHIER, Role.CAGE_SUPERVISOR, step="recording a patron's identity")
    if not isinstance(name, str) or not name.strip() or len(name) > 200:
        raise InvalidInput("a name of 1 to 200 characters is required", field="name")
    if not isinstance(document, str) or not document.strip() or len(document) > 100:
        raise InvalidInput("an identity document reference of 1 to 100 characters is required", field="document")
    with ledger_command(actor=actor, request={"op": "identity_record", "patron": patron}) as cmd:
        who = _patron_named(patron)
        if who.code == ANONYMOUS_PATRON:
            raise InvalidInput("the shared anonymous patron has no identity: register the patron", field="patron")
        replaced = bool(who.name.strip() or who.document.strip())  # a correction, not a first record
        document = document.strip()
        key = check_document_free(document, patron_id=who.pk)
        Patron.objects.filter(pk=who.pk).update(
            kind=Patron.Kind.IDENTIFIED,
            name=name.strip(),
            name_key=name_key(name.strip()),
            document=document,
            document_key=key,
        )
        stream = f"aml/{who.code}"
        (event,) = cmd.append(
            stream=stream,
            expected_version=stream_version(stream),
            events=[
                NewEvent(
                    "PatronIdentityRecorded",
                    {
                        "patron": who.code,
                        "replaced": replaced,
                        **identity_digests(who.code, name=name.strip(), document=document),
                    },
                )
            ],
        )
        return cmd.finish({"patron": who.code, "event": event.position})


def _patron_named(code: str) -> Patron:
    """The patron the request names by code (in its URL): ``NotFound`` (404) when there is none."""
    try:
        return patron_get(code)
    except InvalidInput:
        raise NotFound(f"no patron {code!r}", field="patron") from None


def _years_after(moment: datetime, years: int) -> datetime:
    try:
        return moment.replace(year=moment.year + years)
    except ValueError:  # 29 February
        return moment.replace(year=moment.year + years, day=28)


def identity_retention_ends(patron: Patron) -> datetime:
    """When the patron's identity may be erased: ``AML_IDENTITY_RETENTION_YEARS`` after his last
    cash transaction, chip movement, front money or marker movement or AML decision (CMF L561-12:
    five years in France)."""
    moments = [patron.created_at]
    last_leg = Posting.objects.filter(account__in=patron_cash_accounts(patron.code)).order_by("-event_id").first()
    if last_leg is not None:
        moments.append(last_leg.event.occurred_at)
    last_aml = Event.objects.filter(stream=f"aml/{patron.code}").order_by("-position").first()
    if last_aml is not None:
        moments.append(last_aml.occurred_at)
    return _years_after(max(moments), settings.AML_IDENTITY_RETENTION_YEARS)


def patron_identity_erase(*, patron: str, actor: str, now: datetime | None = None) -> dict:
    """Erase a patron's identity (name, document) once its retention period has ended.

    The ledger is untouched (it never held them): the chain and every export still verify.
    Appends ``PatronIdentityErased`` (code only). Returns ``{"patron", "event", "retention_ended"}``.
    Raises ``Conflict`` (409: retention not over, or nothing to erase), ``NotFound``,
    ``RoleRequired`` (403: needs cage supervisor or admin).
    """
    require_role(actor, Role.CAGE_SUPERVISOR, Role.ADMIN, step="erasing a patron's identity")
    now = now or timezone.now()
    with ledger_command(actor=actor, request={"op": "identity_erase", "patron": patron}) as cmd:
        who = _patron_named(patron)
        if not (who.name or who.document):
            raise Conflict(f"patron {who.code} has no identity to erase", field="patron")
        ends = identity_retention_ends(who)
        if now < ends:
            raise Conflict(
                f"the identity of {who.code} must be kept until {ends.date().isoformat()} (AML retention)",
                field="patron",
            )
        Patron.objects.filter(pk=who.pk).update(name="", name_key="", document="", document_key="")
        stream = f"aml/{who.code}"
        (event,) = cmd.append(
            stream=stream,
            expected_version=stream_version(stream),
            events=[NewEvent("PatronIdentityErased", {"patron": who.code, "retention_ended": ends.date().isoformat()})],
        )
        return cmd.finish({"patron": who.code, "event": event.position, "retention_ended": ends.date().isoformat()})
