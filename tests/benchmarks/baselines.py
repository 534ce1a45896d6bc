"""Baselines measured in the same run as the ledger: plain tables written by raw psycopg
(``executemany`` and ``COPY``), and the ``eventsourcing`` library's PostgreSQL recorder.

The plain tables have the ledger's columns and primary keys and nothing else: no trigger, no
unique (stream, version), no hash chain, no lock. They show what the disk and the driver cost
on their own, so ``ledger rate / raw rate`` is what our checks and chain cost on top.
"""

import uuid
from collections.abc import Iterable, Sequence
from datetime import date, datetime

RAW_TABLES = """
DROP TABLE IF EXISTS raw_posting; DROP TABLE IF EXISTS raw_event;
CREATE TABLE raw_event (
    position bigint PRIMARY KEY, stream varchar(200) NOT NULL, version integer NOT NULL,
    type varchar(80) NOT NULL, schema_version smallint NOT NULL, data jsonb NOT NULL,
    occurred_at timestamptz NOT NULL, recorded_at timestamptz NOT NULL, gaming_day date NOT NULL,
    actor varchar(150) NOT NULL, correlation_id varchar(64) NOT NULL, causation_id varchar(64) NOT NULL,
    idempotency_key varchar(200), prev_hash varchar(64) NOT NULL, hash varchar(64) NOT NULL
);
CREATE TABLE raw_posting (
    id bigserial PRIMARY KEY, event_id bigint NOT NULL, account varchar(200) NOT NULL,
    amount_cents bigint NOT NULL, currency varchar(3) NOT NULL
);
"""
EVENT_COLUMNS = (
    "position, stream, version, type, schema_version, data, occurred_at, recorded_at, gaming_day, "
    "actor, correlation_id, causation_id, idempotency_key, prev_hash, hash"
)
INSERT_EVENT = f"INSERT INTO raw_event ({EVENT_COLUMNS}) VALUES ({', '.join(['%s'] * 15)})"
INSERT_POSTING = "INSERT INTO raw_posting (event_id, account, amount_cents, currency) VALUES (%s, %s, %s, %s)"

EventRow = tuple  # the 15 columns of EVENT_COLUMNS, data as JSON text
PostingRow = tuple  # (event_id, account, amount_cents, currency)


def create_raw_tables(conn) -> None:
    with conn.transaction():
        conn.execute(RAW_TABLES)


def raw_executemany(conn, events: Sequence[EventRow], postings: Sequence[PostingRow]) -> None:
    """One transaction: ``executemany`` of the event rows and the posting rows (psycopg 3
    pipelines them: one round trip per batch, not per row)."""
    with conn.transaction(), conn.cursor() as cur:
        cur.executemany(INSERT_POSTING, postings)
        cur.executemany(INSERT_EVENT, events)


def raw_copy(conn, events: Iterable[EventRow], postings: Iterable[PostingRow]) -> None:
    """One transaction: ``COPY ... FROM STDIN`` of the same rows (the fastest way in)."""
    with conn.transaction(), conn.cursor() as cur:
        with cur.copy("COPY raw_posting (event_id, account, amount_cents, currency) FROM STDIN") as copy:
            for row in postings:
                copy.write_row(row)
        with cur.copy(f"COPY raw_event ({EVENT_COLUMNS}) FROM STDIN") as copy:
            for row in events:
                copy.write_row(row)


def event_row(
    *,
    position: int,
    stream: str,
    version: int,
    type: str,
    data_json: str,
    moment: datetime,
    day: date,
    prev_hash: str,
    hash: str,
) -> EventRow:
    return (position, stream, version, type, 1, data_json, moment, moment, day, "bench", "", "", None, prev_hash, hash)


class EventsourcingRecorder:
    """The ``eventsourcing`` library's ``PostgresApplicationRecorder`` on the benchmark database.

    An event is a ``StoredEvent`` whose state is the library's ``JSONTranscoder`` encoding of
    ``{"data": ..., "postings": [...]}`` (the library has no postings table). Its recorder also
    serialises writers (it locks the table) so its notification ids are in commit order, like
    our positions.
    """

    TABLE = "es_bench_events"

    def __init__(self, dbname: str) -> None:
        from eventsourcing.persistence import JSONTranscoder
        from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore

        self.datastore = PostgresDatastore(dbname, "127.0.0.1", 5432, "postgres", "", pool_size=1)
        self.recorder = PostgresApplicationRecorder(self.datastore, events_table_name=self.TABLE)
        self.recorder.create_table()
        self.transcoder = JSONTranscoder()

    def save(self, originator: uuid.UUID, first_version: int, items: Sequence[tuple[str, dict]]) -> None:
        """Encode and record ``items`` (``(type, state)``) as one save (one transaction)."""
        from eventsourcing.persistence import StoredEvent

        self.recorder.insert_events(
            [
                StoredEvent(originator, first_version + offset, f"casino:{kind}", self.transcoder.encode(state))
                for offset, (kind, state) in enumerate(items)
            ]
        )

    def read_and_decode(self, batch: int = 5000) -> int:
        """Read the whole notification log in ``batch``-sized pages and decode every state."""
        count, start = 0, 1
        decode = self.transcoder.decode
        while True:
            page = self.recorder.select_notifications(start, batch)
            if not page:
                return count
            for notification in page:
                decode(notification.state)
            count += len(page)
            start = page[-1].id + 1

    def close(self) -> None:
        self.datastore.close()
