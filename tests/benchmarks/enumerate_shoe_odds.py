"""The exact odds of a coup from a fresh shoe of 1 to 8 decks, trente-et-quarante and baccarat,
written into ``games/rules/shoe_odds_data.py`` (read through ``games.rules.shoe_odds``, the
module the house edges read first).

Run (not collected by pytest; about 20 s of CPU on one core, measured: trente-et-quarante
0.4-2.6 s a shoe, baccarat 0.6 s a shoe)::

    .venv/bin/python -m tests.benchmarks.enumerate_shoe_odds            # rewrite the module
    .venv/bin/python -m tests.benchmarks.enumerate_shoe_odds --check    # compare, write nothing

Each figure is computed by the engines' own enumerations, never read from the stored module:
``games.rules.trente_quarante._exact_probabilities`` (the generating function over the rows'
points) and ``games.rules.baccarat._exact_probabilities`` (every coup dealt by ``deal_coup``),
both exact fractions. ``decks`` is the only option of either table that these depend on (the
prison option, the commission and the tie's odds are arithmetic on them), and the tables
accept 1 to 8 decks, so the module covers every rule set either game accepts.
``--check`` exits 1 if a stored fraction differs from the computation (or is missing);
``tests/unit/test_shoe_odds.py`` recomputes some shoes and compares exactly.
"""

import argparse
import sys
import time
from fractions import Fraction

from games.rules import baccarat, trente_quarante
from tests.benchmarks.generated import RULES, generated_docstring, write_module

DECKS = range(1, 9)
MODULE = RULES / "shoe_odds_data.py"
CHUNK = 96  # digits a source line: a fraction's terms run to hundreds of digits
SUMMARY = """The exact odds of a coup from the top of a freshly shuffled shoe, by number of decks (1 to
8), as exact fractions written ``"numerator/denominator"``: trente-et-quarante's ``noir``,
``rouge``, ``refait``, ``apres`` and baccarat's ``player``, ``banker``, ``tie``. Read them
through ``games.rules.shoe_odds``."""


def _literal(value: Fraction) -> str:
    text = f"{value.numerator}/{value.denominator}"
    if len(text) <= CHUNK:
        return f'"{text}"'
    pieces = [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)]
    inner = "".join(f'            "{piece}"\n' for piece in pieces)
    return f"(\n{inner}        )"


def _table(name: str, rows: dict[int, dict[str, Fraction]]) -> str:
    lines = [f"{name}: dict[int, dict[str, str]] = {{"]
    for decks, row in rows.items():
        lines.append(f"    {decks}: {{")
        for key, value in row.items():
            lines.append(f'        "{key}": {_literal(value)},')
        lines.append("    },")
    lines.append("}")
    return "\n".join(lines) + "\n"


def compute() -> tuple[dict[int, dict[str, Fraction]], dict[int, dict[str, Fraction]]]:
    tq, bac = {}, {}
    for decks in DECKS:
        started = time.process_time()
        tq[decks] = dict(trente_quarante._exact_probabilities.__wrapped__(decks))
        middle = time.process_time()
        bac[decks] = dict(baccarat._exact_probabilities.__wrapped__(decks))
        print(
            f"{decks} decks: trente-et-quarante {middle - started:.2f} s, baccarat "
            f"{time.process_time() - middle:.2f} s of CPU",
            file=sys.stderr,
        )
    return tq, bac


def render(tq: dict[int, dict[str, Fraction]], bac: dict[int, dict[str, Fraction]]) -> str:
    """The module's text (before ``ruff format``) for the odds ``compute`` returns."""
    docstring = generated_docstring(SUMMARY, "tests.benchmarks.enumerate_shoe_odds")
    return docstring + "\n" + _table("TRENTE_QUARANTE", tq) + "\n" + _table("BACCARAT", bac)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks.enumerate_shoe_odds")
    parser.add_argument("--check", action="store_true", help="compare with the stored module, write nothing")
    args = parser.parse_args(argv)
    tq, bac = compute()
    if args.check:
        from games.rules import shoe_odds

        wrong = [
            f"{game} {decks} decks"
            for game, rows, stored in (
                ("trente-et-quarante", tq, shoe_odds.stored_trente_quarante),
                ("baccarat", bac, shoe_odds.stored_baccarat),
            )
            for decks, row in rows.items()
            if stored(decks) != row
        ]
        print("differs: " + ", ".join(wrong) if wrong else "every stored shoe equals the computation")
        return 1 if wrong else 0
    write_module(MODULE, render(tq, bac))
    print(f"wrote {MODULE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
