"""Plain SQL for the few hot paths where the ORM's cost shows: prepared reads on
PostgreSQL, and INSERT/UPDATE statements for model instances that a caller sends with others.

Django's psycopg cursor binds parameters client-side, so PostgreSQL parses and plans every
statement again: 2 ms for a bet placement's reads on this project's 2-core machine, three times
running them. ``fetch_prepared`` sends the statement with server-side binding and
``prepare=True``: parsed and planned once per connection (connections live ``CONN_MAX_AGE``;
settings set psycopg's ``prepare_threshold``, which Django otherwise sets to None, disabling
preparation altogether).

``instance`` builds a model instance from its columns the way a queryset would (converters
such as ``JSONField``'s applied), without compiling a query. ``insert`` and ``update`` give
``(sql, params)`` for instances, values prepared as ``save()`` would (``auto_now_add``, JSON):
``ledger.store.append`` runs them in its own round trip (``also=``).
"""

from __future__ import annotations

from collections.abc import Sequence

import psycopg
from django.db import DEFAULT_DB_ALIAS, NotSupportedError, connection, connections
from django.db.models import Model

from ledger.errors import STALE_PLAN, SchemaChanged


def fetch_prepared(sql: str, params: Sequence[object]) -> list[tuple]:
    """All rows of ``sql`` (``%s`` placeholders, PostgreSQL only), prepared on this connection.

    Errors come out as Django's (``django.db.DataError``…), like ``cursor.execute``'s. A plan
    made stale by a migration run from elsewhere ("cached plan must not change result type")
    is forgotten and the read retried when no transaction is open; inside one it raises
    ``SchemaChanged``.
    """
    # As Django's own cursor() does: a connection kept between requests (CONN_MAX_AGE) that
    # the server dropped is replaced before it is used.
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    try:
        return _fetch(sql, params)
    except NotSupportedError as exc:
        if STALE_PLAN not in str(exc):
            raise
        if connection.in_atomic_block:
            raise SchemaChanged("the database schema changed under this request; retry it") from exc
        with connection.wrap_database_errors:
            # psycopg forgets its prepared statements along with the server's
            connection.connection.execute("DEALLOCATE ALL")
        return _fetch(sql, params)


def _fetch(sql: str, params: Sequence[object]) -> list[tuple]:
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(sql, params, prepare=True)
        return cursor.fetchall()


def columns(model: type[Model], alias: str) -> str:
    """``alias.col1, alias.col2, …``: the model's concrete columns, in ``instance``'s order."""
    return ", ".join(f'{alias}."{field.column}"' for field in model._meta.concrete_fields)


def instance(model: type[Model], values: Sequence[object]) -> Model | None:
    """The model instance for a row of ``columns(model, …)`` values; None when its key is NULL
    (the unmatched side of an outer join)."""
    fields = model._meta.concrete_fields
    if values[[f.primary_key for f in fields].index(True)] is None:
        return None
    db = connections[DEFAULT_DB_ALIAS]  # the proxy ``connection`` looks itself up on each use
    converted = [
        field.from_db_value(value, None, db) if hasattr(field, "from_db_value") else value
        for field, value in zip(fields, values, strict=True)
    ]
    return model.from_db(db.alias, [field.attname for field in fields], converted)


Statement = tuple[str, list]


def insert(objs: Sequence[Model]) -> Statement:
    """One ``INSERT`` of ``objs`` (instances of one model, primary keys already set), as
    ``bulk_create`` would write them; the instances are marked saved."""
    model = type(objs[0])
    fields = model._meta.concrete_fields
    row = "(" + ", ".join(["%s"] * len(fields)) + ")"
    params = []
    db = connections[DEFAULT_DB_ALIAS]
    for obj in objs:
        params += [field.get_db_prep_save(field.pre_save(obj, True), db) for field in fields]
        obj._state.adding, obj._state.db = False, db.alias
    names = ", ".join(f'"{field.column}"' for field in fields)
    return f'INSERT INTO "{model._meta.db_table}" ({names}) VALUES {", ".join([row] * len(objs))}', params


def update(obj: Model, names: Sequence[str]) -> Statement:
    """``UPDATE`` of the fields ``names`` of ``obj``'s row, by primary key (the caller holds the
    row: no concurrent-transition check)."""
    meta = obj._meta
    fields = [meta.get_field(name) for name in names]
    assignments = ", ".join(f'"{field.column}" = %s' for field in fields)
    db = connections[DEFAULT_DB_ALIAS]
    params = [field.get_db_prep_save(getattr(obj, field.attname), db) for field in fields]
    params.append(meta.pk.get_db_prep_value(obj.pk, db))
    return f'UPDATE "{meta.db_table}" SET {assignments} WHERE "{meta.pk.column}" = %s', params
