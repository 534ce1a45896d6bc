"""The worked vectors of ``shared/vectors/games.json``.

Read from the shared folder beside the checkout (``CASINO_SHARED_DIR`` overrides) so new
vectors are tried as soon as they land; ``tests/data/games.json`` is the copy taken when
these tests were written, used when no shared folder is there.
"""

import json
import os
from decimal import Decimal
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def vectors_path() -> Path:
    shared = Path(os.environ.get("CASINO_SHARED_DIR", REPO.parent / "shared")) / "vectors" / "games.json"
    return shared if shared.is_file() else REPO / "tests" / "data" / "games.json"


def load(game: str) -> list[dict]:
    return [v for v in json.loads(vectors_path().read_text(encoding="utf-8")) if v.get("game") == game]


def cents(eur) -> int:
    """A JSON EUR amount as integer cents, exactly (through its decimal text, never a float product)."""
    amount = Decimal(str(eur)) * 100
    if amount != amount.to_integral_value():
        raise ValueError(f"{eur} EUR is not a whole number of cents")
    return int(amount)
