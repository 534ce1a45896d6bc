"""The cashier's cage and its fill and credit slips."""

from django.db import models
from django_fsm import ConcurrentTransitionMixin, FSMField, transition


class Cage(ConcurrentTransitionMixin, models.Model):
    """The cashier's cage: cash and value-chip inventory. ``closed → open → closed``."""

    class State(models.TextChoices):
        CLOSED = "closed"
        OPEN = "open"

    code = models.CharField(max_length=20, unique=True, default="main")
    state = FSMField(default=State.CLOSED, choices=State.choices, protected=True)
    version = models.PositiveIntegerField(default=0, help_text="version of stream cage/<code>")

    def __str__(self) -> str:
        return f"cage {self.code} ({self.state})"

    @property
    def stream(self) -> str:
        return f"cage/{self.code}"

    @transition(field=state, source=State.CLOSED, target=State.OPEN)
    def open(self) -> None:
        pass

    @transition(field=state, source=State.OPEN, target=State.CLOSED)
    def close(self) -> None:
        pass


from .credit_models import CreditLine, Marker  # noqa: E402, F401 - casino credit
from .slip_models import Slip  # noqa: E402, F401 - fill and credit slips
