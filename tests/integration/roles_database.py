"""A copy of the migrated test database's schema with deploy/postgres_roles.sql run on it as the
superuser, as deploy/migrate does: the place to connect as each database role (local trust auth,
like deploy/smoke) and try what the role may and may not do.

pg_dump needs no exclusive access, so other sessions on the test database may stay.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pytest
from django.db import connection


@contextmanager
def roles_database(suffix: str) -> Iterator[dict]:
    """Yield the copy's connection parameters (``host``, ``port``, ``user``, ``dbname``); the
    copy is ``<test database>_<suffix>``, dropped afterwards. Skips without PostgreSQL, psql or
    pg_dump."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: database roles, grants and event triggers")
    if shutil.which("psql") is None or shutil.which("pg_dump") is None:
        pytest.skip("needs psql and pg_dump to copy the schema and run deploy/postgres_roles.sql")
    settings = connection.settings_dict
    source, copy = settings["NAME"], f"{settings['NAME']}_{suffix}"
    admin = {"host": settings["HOST"] or "127.0.0.1", "port": settings["PORT"] or 5432, "user": settings["USER"]}
    where = ["-h", admin["host"], "-p", str(admin["port"]), "-U", admin["user"]]
    with psycopg.connect(**admin, dbname="postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{copy}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{copy}"')
    try:
        # The migrated schema (tables, triggers, functions), without its owner and grants.
        schema = subprocess.run(
            ["pg_dump", "--schema-only", "--no-owner", "--no-privileges", *where, "-d", source],
            capture_output=True, text=True, timeout=120, check=True,
        ).stdout  # fmt: skip
        for script, text in (("-", schema), ("deploy/postgres_roles.sql", None)):
            done = subprocess.run(
                ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", *where, "-d", copy, "-f", script],
                input=text, capture_output=True, text=True, timeout=120,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
        yield {**admin, "dbname": copy}
    finally:
        with psycopg.connect(**admin, dbname="postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{copy}" WITH (FORCE)')


def connect_as(db: dict, role: str) -> psycopg.Connection:
    """An autocommit connection to ``db`` as ``role``."""
    return psycopg.connect(host=db["host"], port=db["port"], dbname=db["dbname"], user=role, autocommit=True)


@contextmanager
def migration_window(db: dict) -> Iterator[None]:
    """The window deploy/migrate holds open (as the superuser) while the owner role migrates."""
    with connect_as(db, db["user"]) as superuser:
        superuser.execute("INSERT INTO casino_guard.migration_window (open_until) VALUES (now() + interval '1 hour')")
    try:
        yield
    finally:
        with connect_as(db, db["user"]) as superuser:
            superuser.execute("DELETE FROM casino_guard.migration_window")
