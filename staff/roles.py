"""The casino's roles (DESIGN.md §Interfaces) and how code asks about them.

A role is a Django ``Group`` of the same name (created by ``staff/migrations/0001``); a user
may hold several, but segregation of duties is checked per step on the *actor* of each step
(e.g. a fill's runner may be neither the pit user who requested it nor the cage user who
issued it). A superuser holds the ``admin`` role only: admin is not a way around the pit or
the cage.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.contrib.auth import get_user_model
from django.db import models

from ledger.errors import DomainError, InvalidInput


class Role(models.TextChoices):
    DEALER = "dealer", "Dealer (own table, while assigned)"
    PIT_BOSS = "pit_boss", "Pit boss"
    CASHIER = "cashier", "Cashier (cage)"
    CAGE_SUPERVISOR = "cage_supervisor", "Cage supervisor"
    COUNT_TEAM = "count_team", "Count team"
    RUNNER = "runner", "Runner (security escort of fills and credits)"
    DROP_TEAM = "drop_team", "Drop team (removes the drop boxes)"
    AUDITOR = "auditor", "Auditor (read-only, exports)"
    COMPLIANCE = "compliance", "Compliance officer"
    ADMIN = "admin", "Administrator"


ALL_ROLES: frozenset[str] = frozenset(Role.values)
# Everyone who works the floor or the cage may read the operational API.
STAFF_ROLES: frozenset[str] = ALL_ROLES


# Roles one account may not hold together (25 CFR 543.16): the runner escorts what
# the cage issues and the pit receives; the count team counts what the cage is accountable for;
# the drop team hands the boxes to the count team. Each pair is (role, role).
INCOMPATIBLE_ROLES: tuple[tuple[str, str], ...] = (
    (Role.RUNNER.value, Role.CASHIER.value),
    (Role.RUNNER.value, Role.CAGE_SUPERVISOR.value),
    (Role.RUNNER.value, Role.PIT_BOSS.value),
    (Role.COUNT_TEAM.value, Role.CASHIER.value),
    (Role.COUNT_TEAM.value, Role.CAGE_SUPERVISOR.value),
    (Role.DROP_TEAM.value, Role.COUNT_TEAM.value),
    # The compliance officer decides whether to report a patron; the people who deal with the
    # patron must not learn of it (tipping-off: 31 CFR 1021.320(e), CMF L561-18) nor judge
    # their own transactions.
    (Role.COMPLIANCE.value, Role.CASHIER.value),
    (Role.COMPLIANCE.value, Role.PIT_BOSS.value),
)


class IncompatibleRoles(InvalidInput):
    """One account asked to hold two roles that segregation of duties keeps apart (HTTP 400,
    field ``roles``); the message names the pair."""

    code = "incompatible_roles"


# Who sets a new table up on the floor (its first opening); a pit boss opens the tables there.
TABLE_CREATORS = (Role.ADMIN.value,)


def incompatible_pairs(roles: Iterable[str]) -> list[tuple[str, str]]:
    """The pairs of ``INCOMPATIBLE_ROLES`` found together in ``roles`` (empty when none)."""
    held = set(roles)
    return [(a, b) for a, b in INCOMPATIBLE_ROLES if a in held and b in held]


def check_compatible(roles: Iterable[str]) -> None:
    """Raise ``IncompatibleRoles`` (400, field ``roles``) when ``roles`` holds an incompatible
    pair, e.g. "the roles runner and cashier cannot be held by one account"."""
    pairs = incompatible_pairs(roles)
    if pairs:
        named = "; ".join(f"{a} and {b}" for a, b in pairs)
        raise IncompatibleRoles(f"the roles {named} cannot be held by one account", field="roles")


class RoleRequired(DomainError):
    """The actor lacks the role a step needs, or a segregation-of-duties rule forbids it (HTTP 403)."""

    status = 403
    code = "forbidden"


# A second signature not given yet: an approval tries its act before anyone signs
# (``approvals.services``) with this name where the signer will be. Not a possible username
# (Django's allow no spaces or brackets); it holds every role only inside
# ``signatures_deferred()``, so nothing else can sign with it.
PENDING_SIGNATURE = "(awaiting signature)"
_deferred: ContextVar[bool] = ContextVar("signatures_deferred", default=False)


@contextmanager
def signatures_deferred() -> Iterator[None]:
    """A trial run of an act whose second signatures are still to come (see PENDING_SIGNATURE)."""
    token = _deferred.set(True)
    try:
        yield
    finally:
        _deferred.reset(token)


# The users who signed the act now running, each by confirming it from his own session: the
# approvals app runs an act inside ``signed_in_person``. A service whose second person must have
# signed himself checks him with ``require_signed_in_person``, so a name passed by any other
# path (a form's drop-down, an API body, a script) is refused instead of recorded as his.
_signed: ContextVar[frozenset[str]] = ContextVar("signed_in_person", default=frozenset())


@contextmanager
def signed_in_person(users: Iterable[object]) -> Iterator[None]:
    """Run an act whose signers ``users`` each confirmed it from his own session (``approvals``)."""
    token = _signed.set(frozenset(u for u in users if isinstance(u, str)))
    try:
        yield
    finally:
        _signed.reset(token)


def require_signed_in_person(user: str, *, field: str, message: str) -> None:
    """``InvalidInput`` (400, ``field``) saying ``message`` unless ``user`` signed the act now
    running from his own session (``signed_in_person``), or the act is an approval's trial run
    before anyone signed (``signatures_deferred``)."""
    if _deferred.get() or user in _signed.get():
        return
    raise InvalidInput(message, field=field)


def roles_of(user_or_username) -> frozenset[str]:
    """The role names held by a ``User`` (or a username). Unknown or inactive users hold none;
    a superuser holds ``admin`` on top of his groups."""
    user = user_or_username
    if user == PENDING_SIGNATURE and _deferred.get():
        return ALL_ROLES
    if isinstance(user, str):
        user = get_user_model().objects.filter(username=user).first()
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        return frozenset()
    cached = getattr(user, "_casino_roles", None)
    if cached is None:
        cached = remember_roles(user, user.groups.values_list("name", flat=True))
    return cached


# What narrows a row's flags and groups to what the account's identity events granted
# (``staff.standing``, set by the app's ``ready``: it replays events whose services import this
# module). ``(user, group_names, head=None) -> Standing``; until set, the row as it stands.
_narrowing = None


def narrow_with(narrowing) -> None:
    """Take every account's roles and flags through ``narrowing`` (``staff.standing.standing``)."""
    global _narrowing
    _narrowing = narrowing


def remember_roles(user, group_names: Iterable[str], *, head: str | None = None) -> frozenset[str]:
    """Keep on ``user`` (for this request) the roles his groups ``group_names`` give him, as far
    as his identity events granted them (``staff.standing``: a group or flag set with raw SQL
    gives nothing); his flags on the instance are narrowed the same way. ``head``: the latest
    identity event's hash, when the caller read it already."""
    names = frozenset(group_names)
    if _narrowing is not None:
        held = _narrowing(user, names, head=head)
        user.is_active, user.is_superuser, user.is_staff = held.active, held.superuser, held.staff
        names = held.groups
    roles = frozenset(name for name in names if name in ALL_ROLES) if user.is_active else frozenset()
    if user.is_superuser and user.is_active:
        roles |= {Role.ADMIN.value}
    user._casino_roles = roles
    return roles


def has_role(user_or_username, *roles: str) -> bool:
    """True when the user holds at least one of ``roles``."""
    return bool(roles_of(user_or_username) & set(roles))


def role_names(roles: Iterable[str], joiner: str = " or ") -> str:
    """``roles`` as people name them: ``("pit_boss", "cage_supervisor")`` → "pit boss or cage
    supervisor" (each role's label without its note, lower case); an unknown code as it is."""
    names = []
    for role in roles:
        try:
            names.append(Role(str(role)).label.split(" (")[0].lower())
        except ValueError:
            names.append(str(role))
    return joiner.join(names)


def require_role(user_or_username, *roles: str, step: str = "this step") -> None:
    """Raise ``RoleRequired`` (403) unless the user holds one of ``roles``."""
    if not has_role(user_or_username, *roles):
        wanted = role_names(roles)
        raise RoleRequired(f"{step} needs the role {wanted}")


def require_distinct(step: str, actor: str, others: Iterable[tuple[str, str | None]]) -> None:
    """Segregation of duties: ``actor`` must not be any of the named earlier actors.

    ``others`` is ``[(what, username), ...]``, e.g. ``[("requester", "pit1"), ("issuer", "cage1")]``.
    Raises ``RoleRequired`` (403) naming the clash."""
    for what, other in others:
        if other and other == actor:
            raise RoleRequired(f"{step}: {actor} is already the {what}; segregation of duties needs another user")


def require_second_signature(step: str, approver: object, actor: str, *roles: str) -> None:
    """Maker-checker for ``step``: ``approver`` (given through an approval the approver confirmed
    himself, ``approvals``) holds one of ``roles`` and is not ``actor``. Raises ``RoleRequired``
    (403) when there is no such signature, naming the roles it needs."""
    wanted = role_names(roles)
    if not isinstance(approver, str) or not approver:
        raise RoleRequired(f"{step} needs a second signature ({wanted}): request an approval")
    require_role(approver, *roles, step=f"approving: {step}")
    require_distinct(f"approving: {step}", approver, [("signer", actor)])


def grant(user, *roles: str) -> None:
    """Add ``user`` to the role groups (used by set-up commands and tests)."""
    from django.contrib.auth.models import Group

    for role in roles:
        if role not in ALL_ROLES:
            raise ValueError(f"unknown role {role!r}")
        user.groups.add(Group.objects.get_or_create(name=role)[0])
    if hasattr(user, "_casino_roles"):
        del user._casino_roles
