"""Tables, rounds (coups) and bets as state machines (DESIGN.md §State machines).

Transition methods only flip state and check their conditions; the services in
``games.services`` save the model and append the matching event in one transaction.
``state`` fields are protected (only transitions change them); ``ConcurrentTransitionMixin``
refuses to save a row whose state changed since it was read, and ``version`` mirrors the
row's ledger stream version for optimistic concurrency.
"""

import uuid

from django.db import models
from django_fsm import ConcurrentTransitionMixin, FSMField, transition

from basis.refusals import REFUSAL_KINDS

from .catalog import game_choices


class Table(ConcurrentTransitionMixin, models.Model):
    class State(models.TextChoices):
        CLOSED = "closed"
        OPEN = "open"

    code = models.CharField(max_length=20, unique=True, help_text="e.g. R1")
    # A game's code, one of the registry's (``games.catalog``): the choices are read from it
    # when asked, so a game added there needs no migration here.
    game = models.CharField(max_length=32, choices=game_choices)
    state = FSMField(default=State.CLOSED, choices=State.choices, protected=True)
    rules = models.JSONField(default=dict, help_text="the rule set in force, recorded in TableOpened")
    currency = models.CharField(max_length=3, default="EUR")
    version = models.PositiveIntegerField(default=0, help_text="version of stream table/<code>")
    rounds_played = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["code"]

    def __str__(self) -> str:
        return f"{self.code} ({self.game}, {self.state})"

    @property
    def stream(self) -> str:
        return f"table/{self.code}"

    @transition(field=state, source=State.CLOSED, target=State.OPEN)
    def open(self) -> None:
        pass

    @transition(field=state, source=State.OPEN, target=State.CLOSED)
    def close(self) -> None:
        pass


class Round(ConcurrentTransitionMixin, models.Model):
    """One coup: ``betting → closed_for_bets → dealing → settled`` (+ ``voided``)."""

    class State(models.TextChoices):
        BETTING = "betting"
        CLOSED_FOR_BETS = "closed_for_bets"
        DEALING = "dealing"
        SETTLED = "settled"
        VOIDED = "voided"

    IN_PLAY = (State.BETTING, State.CLOSED_FOR_BETS, State.DEALING)

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="rounds")
    number = models.PositiveIntegerField(help_text="coup number at this table, from 1")
    state = FSMField(default=State.BETTING, choices=State.choices, protected=True)
    result = models.JSONField(null=True, blank=True, help_text="roulette: {'number': n}")
    version = models.PositiveIntegerField(default=0, help_text="version of stream round/<id>")
    opened_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["table_id", "number"]
        constraints = [models.UniqueConstraint(fields=["table", "number"], name="games_round_table_number_uniq")]

    def __str__(self) -> str:
        return f"{self.table_id} coup {self.number} ({self.state})"

    @property
    def stream(self) -> str:
        return f"round/{self.id}"

    @transition(field=state, source=State.BETTING, target=State.CLOSED_FOR_BETS)
    def close_bets(self) -> None:
        """Rien ne va plus."""

    @transition(field=state, source=State.CLOSED_FOR_BETS, target=State.DEALING)
    def deal(self) -> None:
        pass

    @transition(field=state, source=State.DEALING, target=State.SETTLED)
    def settle(self) -> None:
        pass

    @transition(field=state, source=[State.BETTING, State.CLOSED_FOR_BETS, State.DEALING], target=State.VOIDED)
    def void(self) -> None:
        pass


class BetQuerySet(models.QuerySet):
    def in_prison(self) -> "BetQuerySet":
        """The imprisoned bets, read through the in-prison index (``prison_level > 0``, which
        a check constraint ties to the state)."""
        return self.filter(prison_level__gt=0, state=Bet.State.IMPRISONED)


class Bet(ConcurrentTransitionMixin, models.Model):
    """One bet on the layout: ``placed → won | lost | pushed | half_lost | imprisoned | returned``."""

    class State(models.TextChoices):
        PLACED = "placed"
        WON = "won"
        LOST = "lost"
        PUSHED = "pushed"
        HALF_LOST = "half_lost"
        IMPRISONED = "imprisoned"
        RELEASED = "released"
        RETURNED = "returned"

    class Chips(models.TextChoices):
        VALUE = "value"
        COLOUR = "colour"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # indexed by games_bet_round_patron below (round first), not on its own
    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="bets", db_index=False)
    patron = models.ForeignKey("patrons.Patron", on_delete=models.PROTECT, related_name="bets")
    position = models.JSONField(help_text="the bet on the layout, e.g. {'type': 'cheval', 'numbers': [0, 3]}")
    stake_cents = models.PositiveBigIntegerField()
    chips = models.CharField(max_length=6, choices=Chips.choices, default=Chips.VALUE)
    announce = models.CharField(max_length=40, blank=True, help_text="announced bet this belongs to, if any")
    announce_group = models.UUIDField(null=True, blank=True)
    state = FSMField(default=State.PLACED, choices=State.choices, protected=True)
    return_cents = models.BigIntegerField(null=True, blank=True, help_text="stake + winnings paid back")
    prison_level = models.PositiveSmallIntegerField(default=0, help_text="0 free; n in prison (RULES.md §Prison bets)")
    placed_at = models.DateTimeField(auto_now_add=True)

    objects = BetQuerySet.as_manager()

    class Meta:
        ordering = ["round_id", "placed_at"]
        indexes = [
            # Every roulette spin and trente-et-quarante coup first looks for the table's imprisoned bets;
            # without this it read every bet of every coup the table ever had.
            # Only imprisoned bets are in it, so it stays a few rows. Its condition is on the
            # level, not the state: a settlement then changes no indexed column of its bets,
            # and PostgreSQL rewrites them in place (HOT, with the room ``fillfactor`` leaves).
            models.Index(fields=["round"], condition=models.Q(prison_level__gt=0), name="games_bet_in_prison"),
            # A bet placement reads the patron's bets on the coup (limits are per position): by
            # round alone it read every bet of a 10,000-patron spin. Serves the
            # round's own lookups too.
            models.Index(fields=["round", "patron"], name="games_bet_round_patron"),
        ]
        constraints = [
            # In prison exactly when imprisoned (RULES.md §Prison bets: level n >= 1), so the
            # in-prison index holds every imprisoned bet and ``in_prison()`` finds them all.
            models.CheckConstraint(
                condition=models.Q(state="imprisoned", prison_level__gt=0)
                | (~models.Q(state="imprisoned") & models.Q(prison_level=0)),
                name="games_bet_prison_level_iff_imprisoned",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.position} {self.stake_cents} ({self.state})"

    @transition(field=state, source=State.PLACED, target=State.WON)
    def win(self) -> None:
        pass

    @transition(field=state, source=State.PLACED, target=State.LOST)
    def lose(self) -> None:
        pass

    @transition(field=state, source=State.PLACED, target=State.HALF_LOST)
    def lose_half(self) -> None:
        """La partage: half the even-chance stake back on zero."""

    @transition(field=state, source=State.PLACED, target=State.PUSHED)
    def push(self) -> None:
        pass

    @transition(field=state, source=State.PLACED, target=State.RETURNED)
    def give_back(self) -> None:
        """Voided coup: the stake goes back untouched."""

    @transition(field=state, source=State.PLACED, target=State.IMPRISONED)
    def imprison(self) -> None:
        """Zero (en prison) or un après: the stake goes to the table's prison."""

    @transition(field=state, source=State.IMPRISONED, target=State.RELEASED)
    def release(self) -> None:
        """It won in prison (or the table closed): the stake comes back, no winnings."""

    @transition(field=state, source=State.IMPRISONED, target=State.LOST)
    def lose_in_prison(self) -> None:
        pass


class Shoe(ConcurrentTransitionMixin, models.Model):
    """A shoe of N decks: ``new → shuffled → in_play → exhausted → closed`` (+ ``voided``).

    ``shuffled`` mode: the backend shuffles (``secrets``-seeded), records the SHA-256
    commitment of the order and deals from it; the order and its salt stay in this row, out of
    the ledger, until the shoe closes and ``ShoeClosed`` reveals them. ``reader`` mode: a
    card-reading shoe reports each card; the backend refuses a card the shoe cannot contain.
    """

    class State(models.TextChoices):
        NEW = "new"
        SHUFFLED = "shuffled"
        IN_PLAY = "in_play"
        EXHAUSTED = "exhausted"
        CLOSED = "closed"
        VOIDED = "voided"

    class Mode(models.TextChoices):
        SHUFFLED = "shuffled"
        READER = "reader"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="shoes")
    mode = models.CharField(max_length=8, choices=Mode.choices)
    decks = models.PositiveSmallIntegerField()
    state = FSMField(default=State.NEW, choices=State.choices, protected=True)
    commitment = models.CharField(max_length=64, blank=True)
    salt = models.CharField(max_length=64, blank=True, help_text="private until the shoe closes")
    order = models.JSONField(default=list, blank=True, help_text="private until the shoe closes")
    cut_position = models.PositiveIntegerField(default=0, help_text="cards from the top, burns included")
    drawn = models.JSONField(default=list, blank=True, help_text="cards out of the shoe so far, burns included")
    version = models.PositiveIntegerField(default=0, help_text="version of stream shoe/<id>")

    class Meta:
        ordering = ["table_id"]

    def __str__(self) -> str:
        return f"shoe {self.id} at {self.table_id} ({self.state})"

    @property
    def stream(self) -> str:
        return f"shoe/{self.id}"

    @transition(field=state, source=State.NEW, target=State.SHUFFLED)
    def shuffle(self) -> None:
        pass

    @transition(field=state, source=State.SHUFFLED, target=State.IN_PLAY)
    def start(self) -> None:
        pass

    @transition(field=state, source=State.IN_PLAY, target=State.EXHAUSTED)
    def exhaust(self) -> None:
        """The cut card came out: the coup in play finishes, no new coup starts."""

    @transition(field=state, source=[State.IN_PLAY, State.EXHAUSTED], target=State.CLOSED)
    def close(self) -> None:
        pass

    @transition(field=state, source=[State.NEW, State.SHUFFLED, State.IN_PLAY, State.EXHAUSTED], target=State.VOIDED)
    def void(self) -> None:
        pass


class BetRefusal(models.Model):
    """A well-formed bet the house refused (a limit, the self-limit, the chips he holds, betting
    closed or the table closed), recorded for the pit boss's floor, OUTSIDE the
    ledger: a refused bet appends nothing there (bad input never does), so the refusal is
    written here in its own transaction after the command rolled back
    (``games.services.refusals.bet_refusal_record``).

    Append-only by convention: ``save`` refuses to change a recorded row and ``delete``
    refuses to remove one (no database trigger: it is a monitoring record, not money).
    ``stake_cents`` is the refused stake (integer cents); ``created_at`` is UTC and
    ``gaming_day`` the casino's gaming day of it.
    """

    table_code = models.CharField(max_length=20)
    round_id = models.UUIDField(null=True, blank=True, help_text="the coup the bet was for, when known")
    patron_code = models.CharField(max_length=20, blank=True, help_text="empty when not known")
    stake_cents = models.BigIntegerField(help_text="the refused stake")
    kind = models.CharField(max_length=20, choices=list(REFUSAL_KINDS.items()))
    message = models.TextField(help_text="the refusal as the client read it")
    actor = models.CharField(max_length=150, help_text="who sent the bet (user or device)")
    created_at = models.DateTimeField(help_text="UTC")
    gaming_day = models.DateField()
    # NULL, not "": a refusal sent without a key is never a retry (NULLs are distinct in the
    # unique constraint below), as the ledger's own idempotency_key.
    idempotency_key = models.CharField(  # noqa: DJ001
        max_length=200,
        null=True,
        blank=True,
        help_text="the refused request's Idempotency-Key: a retry with it is not counted again",
    )
    fingerprint = models.CharField(
        max_length=64,
        blank=True,
        default="",
        help_text="SHA-256 of who sent what (actor, table, coup, patron, stake, kind): a retry is the same",
    )

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["gaming_day", "table_code"], name="games_betrefusal_day_table")]
        constraints = [
            models.UniqueConstraint(
                fields=["idempotency_key", "fingerprint"],
                condition=models.Q(idempotency_key__isnull=False),
                name="games_betrefusal_one_per_retry",
            )
        ]

    def __str__(self) -> str:
        return f"{self.table_code} {self.kind} {self.stake_cents} ({self.patron_code or '-'})"

    def save(self, *args, **kwargs) -> None:
        if not self._state.adding:
            raise ValueError("a recorded bet refusal is never changed")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValueError("a recorded bet refusal is never deleted")


class ColourStack(ConcurrentTransitionMixin, models.Model):
    """A patron's colour chips at one English roulette table (RULES.md §Roulette).

    One colour per seated patron, at most ``max_colours`` (8) active per table; the unit value
    of one chip is chosen at buy-in. Valid only at that table; ``change_inverse`` turns what is
    left back into value chips.
    """

    class State(models.TextChoices):
        ACTIVE = "active"
        CHANGED_BACK = "changed_back"

    table = models.ForeignKey("games.Table", on_delete=models.PROTECT, related_name="colour_stacks")
    patron = models.ForeignKey("patrons.Patron", on_delete=models.PROTECT, related_name="colour_stacks")
    colour = models.CharField(max_length=20)
    unit_value_cents = models.PositiveBigIntegerField()
    state = FSMField(default=State.ACTIVE, choices=State.choices, protected=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "cashier_colourstack"  # the table predates its move to games; kept to move no data
        ordering = ["table_id", "colour"]
        constraints = [
            models.UniqueConstraint(
                fields=["table", "colour"], condition=models.Q(state="active"), name="cashier_one_active_colour"
            ),
            models.UniqueConstraint(
                fields=["table", "patron"], condition=models.Q(state="active"), name="cashier_one_colour_per_patron"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.colour} at {self.table_id} ({self.patron_id})"

    @transition(field=state, source=State.ACTIVE, target=State.CHANGED_BACK)
    def change_back(self) -> None:
        pass
