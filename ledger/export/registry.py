"""The CSV files of an export, each written by a function other apps may supply.

The ledger imports neither games nor cashier (DESIGN.md §Layout): it registers default
writers built from the ledger alone (``ledger.export.reports``), and an app that knows more
(the cage's reports, the AML registry with identities) registers its own writer for the same
file name in its ``AppConfig.ready``; the last registration wins (apps load after the ledger).
"""

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date

# The export's CSV files, in the order they are written (events.jsonl first, manifest.json last).
CORE_CSV = ("postings.csv", "balances.csv")
REPORT_CSV = ("tables.csv", "cage.csv", "aml.csv")


@dataclass(frozen=True)
class ExportContext:
    """What a writer exports: gaming ``day``, the chain's positions ``first``..``last`` (inclusive),
    and whether the requester may see identities (``include_identity``: aml.csv only)."""

    day: date
    first: int
    last: int
    include_identity: bool


Rows = Iterable[Sequence[object]]
CsvWriter = Callable[[ExportContext], Rows]
WRITERS: dict[str, CsvWriter] = {}


def register_csv(name: str) -> Callable[[CsvWriter], CsvWriter]:
    """Decorator: ``writer(ctx)`` yields the header row, then the data rows, of file ``name``.

    Rows are streamed: a writer must read with ``.iterator(chunk_size=…)`` and keep no more
    than a bounded state (per table, per patron), never the day's events.
    """
    if name not in REPORT_CSV:
        raise ValueError(f"{name} is not a report file of the export; one of {', '.join(REPORT_CSV)}")

    def decorator(writer: CsvWriter) -> CsvWriter:
        WRITERS[name] = writer
        return writer

    return decorator
