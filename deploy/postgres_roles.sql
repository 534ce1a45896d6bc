-- PostgreSQL roles for one casino database (deploy/README.md, "Database roles").
--
--   psql "postgres://postgres@db:5432/casino" -X -q -v ON_ERROR_STOP=1 -f deploy/postgres_roles.sql
--   psql -h db -U postgres -d postgres -v dbname=casino_paris -f deploy/postgres_roles.sql
--
-- psql variables (all optional):
--   dbname            the database to set up                  [the one psql is connected to]
--   owner_role        owns the schema and every table; runs the migrations   [casino_owner]
--   app_role          gunicorn, Celery worker and beat                        [casino_app]
--   auditor_role      read-only access for audit and regulators               [casino_auditor]
--   owner_password, app_password, auditor_password   set (or change) that role's password
--
-- Run it as a superuser once before the first migration (it creates the roles and hands the
-- database and its schema to the owner role), migrate as the owner role, then run it again
-- after every migration: the second and later runs need only the owner role (deploy/migrate
-- does both). It is idempotent: every run converges on the same state, whatever was there.
--
-- What it guarantees, and checks at the end (it fails otherwise):
--   * app_role has SELECT and INSERT, nothing else, on the append-only ledger tables
--     ledger_event, ledger_posting, ledger_idempotencyrecord (and on any table a later
--     migration protects with the ledger_reject_change() trigger): no UPDATE, DELETE,
--     TRUNCATE. The triggers refuse those anyway; the grants make it two locks, not one.
--   * app_role has SELECT, INSERT, UPDATE, DELETE, TRUNCATE on every other table (projections:
--     ledger_accountbalance, ledger_projectioncheckpoint, ledger_auditentry, ledger_tabledaystats,
--     ledger_patrondayrating; cashier_*, games_*, auth_*, django_* except django_migrations,
--     which it may only read) and USAGE, SELECT on the sequences.
--   * auditor_role reads every table except django_session, and auth_user without `password`;
--     its sessions are read-only by default.
--   * Neither owns anything, creates anything, nor is a member of the owner role; none of the
--     three is superuser or may create roles or databases.
-- Tables a migration creates later get SELECT, INSERT (app) and SELECT (auditor) at once
-- through default privileges: a new table is append-only for the application until this
-- script has run again.

\set ON_ERROR_STOP on
\if :{?owner_role} \else \set owner_role casino_owner \endif
\if :{?app_role} \else \set app_role casino_app \endif
\if :{?auditor_role} \else \set auditor_role casino_auditor \endif
\if :{?dbname}
  SELECT current_database() = :'dbname' AS on_target_db \gset
  \if :on_target_db \else \connect :"dbname" \endif
\else
  SELECT current_database() AS dbname \gset
\endif
-- One transaction: a run against a live database never shows a half-granted state, and a
-- failed run changes nothing.
BEGIN;

-- 1. Roles (cluster-wide): created when missing; kept unprivileged.
SELECT format('CREATE ROLE %I LOGIN', r)
  FROM unnest(ARRAY[:'owner_role', :'app_role', :'auditor_role']) AS r
 WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) \gexec
SELECT format('ALTER ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS', rolname)
  FROM pg_roles
 WHERE rolname IN (:'owner_role', :'app_role', :'auditor_role')
   AND (NOT rolcanlogin OR rolsuper OR rolcreatedb OR rolcreaterole OR rolreplication OR rolbypassrls) \gexec
-- Membership in the owner role would carry the owner's rights: none.
SELECT format('REVOKE %I FROM %I', :'owner_role', m.rolname)
  FROM pg_auth_members am
  JOIN pg_roles g ON g.oid = am.roleid
  JOIN pg_roles m ON m.oid = am.member
 WHERE g.rolname = :'owner_role' AND m.rolname IN (:'app_role', :'auditor_role') \gexec
SELECT format('ALTER ROLE %I SET default_transaction_read_only = on', :'auditor_role')
 WHERE NOT EXISTS (
     SELECT 1 FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole
      WHERE r.rolname = :'auditor_role' AND s.setdatabase = 0
        AND 'default_transaction_read_only=on' = ANY (s.setconfig)) \gexec
\if :{?owner_password}
  SELECT format('ALTER ROLE %I PASSWORD %L', :'owner_role', :'owner_password') \gexec
\endif
\if :{?app_password}
  SELECT format('ALTER ROLE %I PASSWORD %L', :'app_role', :'app_password') \gexec
\endif
\if :{?auditor_password}
  SELECT format('ALTER ROLE %I PASSWORD %L', :'auditor_role', :'auditor_password') \gexec
\endif

-- 2. The database and its schema belong to the owner role; nobody else may create in them.
SELECT format('ALTER DATABASE %I OWNER TO %I', datname, :'owner_role')
  FROM pg_database
 WHERE datname = :'dbname' AND datdba <> (SELECT oid FROM pg_roles WHERE rolname = :'owner_role') \gexec
SELECT format('ALTER SCHEMA public OWNER TO %I', :'owner_role')
  FROM pg_namespace
 WHERE nspname = 'public' AND nspowner <> (SELECT oid FROM pg_roles WHERE rolname = :'owner_role') \gexec
REVOKE ALL ON DATABASE :"dbname" FROM PUBLIC;
GRANT CONNECT ON DATABASE :"dbname" TO :"app_role", :"auditor_role";
REVOKE ALL ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO :"app_role", :"auditor_role";

-- 3. Everything in the schema belongs to the owner role (e.g. tables a superuser migrated
--    before this script existed). Tables first: their identity sequences follow them.
SELECT format('ALTER TABLE public.%I OWNER TO %I', c.relname, :'owner_role')
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
   AND c.relowner <> (SELECT oid FROM pg_roles WHERE rolname = :'owner_role') \gexec
SELECT format('ALTER SEQUENCE public.%I OWNER TO %I', c.relname, :'owner_role')
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'public' AND c.relkind = 'S'
   AND c.relowner <> (SELECT oid FROM pg_roles WHERE rolname = :'owner_role') \gexec
SELECT format('ALTER FUNCTION %s OWNER TO %I', p.oid::regprocedure, :'owner_role')
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
 WHERE n.nspname = 'public' AND p.prokind = 'f'
   AND p.proowner <> (SELECT oid FROM pg_roles WHERE rolname = :'owner_role') \gexec

-- 4. Tables the owner creates later (the next migration): append-only for the application,
--    readable by the auditor, until the next run of this script sorts them out.
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner_role" IN SCHEMA public GRANT SELECT, INSERT ON TABLES TO :"app_role";
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner_role" IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO :"app_role";
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner_role" IN SCHEMA public GRANT SELECT ON TABLES TO :"auditor_role";

-- 5. The tables that exist now. Append-only: the three ledger tables, and any table carrying
--    a trigger that calls ledger_reject_change() (ledger/migrations/0002_append_only_triggers.py).
CREATE TEMPORARY TABLE casino_append_only ON COMMIT DROP AS
SELECT c.oid AS relid, c.relname
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
   AND (c.relname IN ('ledger_event', 'ledger_posting', 'ledger_idempotencyrecord')
        OR EXISTS (SELECT 1 FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
                    WHERE t.tgrelid = c.oid AND p.proname = 'ledger_reject_change'));

SELECT format('REVOKE ALL ON TABLE public.%I FROM %I', relname, :'app_role'),
       format('GRANT SELECT, INSERT ON TABLE public.%I TO %I', relname, :'app_role')
  FROM casino_append_only ORDER BY relname \gexec
SELECT format('GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON TABLE public.%I TO %I', c.relname, :'app_role')
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname <> 'django_migrations'
   AND c.oid NOT IN (SELECT relid FROM casino_append_only) ORDER BY c.relname \gexec
SELECT format('REVOKE ALL ON TABLE public.%I FROM %I', c.relname, :'app_role'),
       format('GRANT SELECT ON TABLE public.%I TO %I', c.relname, :'app_role')
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'public' AND c.relname = 'django_migrations' \gexec
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO :"app_role";

REVOKE ALL ON ALL TABLES IN SCHEMA public FROM :"auditor_role";
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM :"auditor_role";
GRANT SELECT ON ALL TABLES IN SCHEMA public TO :"auditor_role";
-- Session keys are credentials; password hashes too.
SELECT format('REVOKE ALL ON TABLE public.%I FROM %I', c.relname, :'auditor_role')
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'public' AND c.relname IN ('django_session', 'auth_user') \gexec
SELECT format('GRANT SELECT (%s) ON TABLE public.auth_user TO %I',
              string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum), :'auditor_role')
  FROM pg_attribute a
 WHERE a.attrelid = to_regclass('public.auth_user') AND a.attnum > 0 AND NOT a.attisdropped
   AND a.attname <> 'password'
HAVING count(*) > 0 \gexec

-- 6. Check what matters, from the catalogue, and fail loudly if it does not hold.
SELECT count(*) > 0 AS casino_violations
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
   AND (   (c.oid IN (SELECT relid FROM casino_append_only)
            AND (   has_table_privilege(:'app_role', c.oid, 'UPDATE')
                 OR has_table_privilege(:'app_role', c.oid, 'DELETE')
                 OR has_table_privilege(:'app_role', c.oid, 'TRUNCATE')))
        OR has_table_privilege(:'auditor_role', c.oid, 'INSERT')
        OR has_table_privilege(:'auditor_role', c.oid, 'UPDATE')
        OR has_table_privilege(:'auditor_role', c.oid, 'DELETE')
        OR has_table_privilege(:'auditor_role', c.oid, 'TRUNCATE')
        OR c.relowner IN (SELECT oid FROM pg_roles WHERE rolname IN (:'app_role', :'auditor_role'))) \gset
\if :casino_violations
  \echo 'postgres_roles.sql: the application or auditor role can still change the ledger:'
  SELECT c.relname AS "table", pg_get_userbyid(c.relowner) AS owner,
         has_table_privilege(:'app_role', c.oid, 'UPDATE') AS app_update,
         has_table_privilege(:'app_role', c.oid, 'DELETE') AS app_delete,
         has_table_privilege(:'app_role', c.oid, 'TRUNCATE') AS app_truncate,
         has_table_privilege(:'auditor_role', c.oid, 'INSERT') AS auditor_insert
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY 1;
  DO $$ BEGIN RAISE EXCEPTION 'postgres_roles.sql: privilege check failed'; END $$;
\endif
SELECT count(*) AS casino_append_only_count FROM casino_append_only \gset
COMMIT;
\echo postgres_roles.sql: :dbname ready: owned by :owner_role; :app_role without UPDATE/DELETE/TRUNCATE on :casino_append_only_count append-only tables; :auditor_role read-only
