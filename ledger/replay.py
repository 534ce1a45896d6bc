"""``ledger replay-check``: rebuild the live models' states from the events alone and compare.

The ledger knows no game: each app registers a checker (in its ``AppConfig.ready``) that
replays its own streams and yields the differences it finds against its models.
"""

import enum
from collections.abc import Callable, Iterable
from dataclasses import dataclass


def _shown(value: object) -> str:
    # A model's choice (``Table.State.CLOSED``) is shown as the value it stores ('closed'),
    # never as its Python name: the command's report is read by people.
    if isinstance(value, enum.Enum):
        value = value.value
    return repr(value)


@dataclass(frozen=True)
class Difference:
    """One field of one object whose live value differs from the value replayed from the ledger."""

    kind: str
    id: str
    field: str
    live: object
    replayed: object

    def __str__(self) -> str:
        live, replayed = _shown(self.live), _shown(self.replayed)
        return f"{self.kind} {self.id}: {self.field} is {live} live but {replayed} from the events"


Checker = Callable[[], Iterable[Difference]]
CHECKERS: list[Checker] = []


def register(checker: Checker) -> Checker:
    CHECKERS.append(checker)
    return checker


def compare(kind: str, live: dict[str, dict], replayed: dict[str, dict]) -> Iterable[Difference]:
    """Differences between ``{id: {field: value}}`` maps (a missing object is a difference too)."""
    for key in sorted(set(live) | set(replayed)):
        if key not in replayed:
            yield Difference(kind, key, "(object)", "exists", "no events")
        elif key not in live:
            yield Difference(kind, key, "(object)", "missing", "has events")
        else:
            for name, value in replayed[key].items():
                if live[key].get(name) != value:
                    yield Difference(kind, key, name, live[key].get(name), value)


def replay_check() -> list[Difference]:
    return [difference for checker in CHECKERS for difference in checker()]
