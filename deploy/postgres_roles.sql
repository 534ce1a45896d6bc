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
--   * auditor_role reads every table except django_session and the compliance app's tables
--     (suspicion cases), auth_user without `password`, games_shoe without `order`, `salt` and
--     `drawn`, ledger_idempotencyrecord without `result`; its sessions are read-only by default.
--   * Neither owns anything, creates anything, nor is a member of the owner role; none of the
--     three is superuser or may create roles or databases.
--   * The owner role cannot lift the append-only lock either: event triggers in the
--     schema casino_guard (the superuser's) refuse, once the ledger holds an event, disabling,
--     dropping or replacing the ledger tables' triggers or their functions, renaming or
--     dropping the tables, rewriting their rows (ALTER COLUMN … TYPE … USING) and granting
--     UPDATE, DELETE, TRUNCATE or TRIGGER on them, to every role but a superuser. Installed
--     by a superuser's run; every run fails if they are missing or disabled.
--   * No shadow ledger: the three roles' search_path is pinned to public (a schema named after
--     a role comes first on the default "$user", public); a fifth event trigger refuses every
--     role but a superuser a schema (CREATE or ALTER SCHEMA) and anything outside public, and
--     tables, views, functions… in public outside the migration window deploy/migrate opens
--     (casino_guard.migration_window). Every run fails if a role is not pinned or a schema
--     other than public holds a relation named like one of public's.
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
-- The search path of all three is pinned to the schema the tables live in. PostgreSQL's default,
-- "$user", public, would put a schema named after the role first: one called casino_app, made
-- by whoever could create schemas, with trigger-free copies of the ledger tables, would take the
-- application's reads and writes (and a schema of views, the auditor's). The settings pin it on
-- each connection as well (casino/settings.py); a per-database setting for one of the roles
-- would override this one, so none is kept.
SELECT format('ALTER ROLE %I SET search_path = public', r)
  FROM unnest(ARRAY[:'owner_role', :'app_role', :'auditor_role']) AS r
 WHERE NOT EXISTS (
     SELECT 1 FROM pg_db_role_setting s JOIN pg_roles o ON o.oid = s.setrole
      WHERE o.rolname = r AND s.setdatabase = 0 AND 'search_path=public' = ANY (s.setconfig)) \gexec
SELECT format('ALTER ROLE %I IN DATABASE %I RESET search_path', o.rolname, d.datname)
  FROM pg_db_role_setting s JOIN pg_roles o ON o.oid = s.setrole JOIN pg_database d ON d.oid = s.setdatabase
 WHERE o.rolname IN (:'owner_role', :'app_role', :'auditor_role')
   AND EXISTS (SELECT 1 FROM unnest(s.setconfig) c WHERE c LIKE 'search\_path=%') \gexec
-- The auditor's role reads: a transaction of it left open (a console, a script) would hold its
-- tables against a rebuild's TRUNCATE, and every reader would queue behind that. Closed after a
-- minute idle in a transaction.
SELECT format('ALTER ROLE %I SET idle_in_transaction_session_timeout = %L', :'auditor_role', '60s')
 WHERE NOT EXISTS (
     SELECT 1 FROM pg_db_role_setting s JOIN pg_roles o ON o.oid = s.setrole
      WHERE o.rolname = :'auditor_role' AND s.setdatabase = 0
        AND 'idle_in_transaction_session_timeout=60s' = ANY (s.setconfig)) \gexec
-- The database's own search path (its owner may set one): none, the roles' settings decide.
SELECT format('ALTER DATABASE %I RESET search_path', d.datname)
  FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase
 WHERE s.setrole = 0 AND d.datname = :'dbname'
   AND EXISTS (SELECT 1 FROM unnest(s.setconfig) c WHERE c LIKE 'search\_path=%') \gexec
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

-- 4b. The ledger's writer lock (ledger/store.py: pg_advisory_xact_lock on one key) is taken by
--     the roles that append, the application and the owner. PUBLIC may execute the advisory-lock
--     functions by default: the auditor's role, reading, could take that key in a session left
--     open and every append would wait on it. Only a superuser may change these grants.
SELECT format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', p.oid::regprocedure),
       format('GRANT EXECUTE ON FUNCTION %s TO %I, %I', p.oid::regprocedure, :'owner_role', :'app_role')
  FROM pg_proc p
 WHERE p.pronamespace = 'pg_catalog'::regnamespace
   AND p.proname IN ('pg_advisory_lock', 'pg_advisory_lock_shared', 'pg_advisory_xact_lock',
                     'pg_advisory_xact_lock_shared', 'pg_try_advisory_lock', 'pg_try_advisory_lock_shared',
                     'pg_try_advisory_xact_lock', 'pg_try_advisory_xact_lock_shared')
   AND (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) \gexec

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
-- Every table but the private ones below, which get their columns one by one: never a moment
-- when the auditor's role holds a shoe's order (casino_guard refuses that state).
SELECT format('GRANT SELECT ON TABLE public.%I TO %I', c.relname, :'auditor_role')
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
   AND c.relname NOT IN ('django_session', 'auth_user', 'games_shoe', 'patrons_patronpin', 'staff_devicetoken',
                         'ledger_idempotencyrecord')
   AND c.relname NOT LIKE 'compliance\_%' ORDER BY c.relname \gexec
-- Session keys are credentials; so are password hashes, a patron's PIN hash (four digits:
-- read, it is guessed offline in 10,000 tries) and a device token's digest. A shoe's card
-- order and salt stay private until the shoe closes (its ShoeClosed event then publishes
-- them): read in play, they would tell a colluding player the next card; the cards drawn so
-- far (`drawn`) hold a hole card or a stud hand's down cards while their coup is played.
-- A command's stored answer (`ledger_idempotencyrecord.result`) is what its caller was told,
-- a black jack deal's hole card once among it: the auditor reads its key, request fingerprint
-- and position (a cut tail's witness), not the answer.
-- The auditor reads every other column of those tables.
-- A suspicion case (the compliance app's tables) names the patron and the reasons: only the
-- compliance officer reads it (tipping-off), through the application; the auditor's role
-- reads none of it.
SELECT format('REVOKE ALL ON TABLE public.%I FROM %I', c.relname, :'auditor_role')
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm')
   AND (c.relname IN ('django_session', 'auth_user', 'games_shoe', 'patrons_patronpin', 'staff_devicetoken',
                      'ledger_idempotencyrecord')
        OR c.relname LIKE 'compliance\_%') \gexec
SELECT format('GRANT SELECT (%s) ON TABLE public.%I TO %I',
              string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum), s.tab, :'auditor_role')
  FROM (VALUES ('auth_user', ARRAY['password']),
               ('games_shoe', ARRAY['order', 'salt', 'drawn']),
               ('patrons_patronpin', ARRAY['pin_hash']),
               ('staff_devicetoken', ARRAY['digest']),
               ('ledger_idempotencyrecord', ARRAY['result'])) AS s(tab, secret)
  JOIN pg_attribute a ON a.attrelid = to_regclass('public.' || s.tab)
 WHERE a.attnum > 0 AND NOT a.attisdropped AND a.attname <> ALL (s.secret)
 GROUP BY s.tab \gexec

-- 6. The lock the owner cannot lift. The owner role owns the ledger tables and their
--    trigger functions, so on its own it could ALTER TABLE … DISABLE TRIGGER, DROP FUNCTION
--    ledger_reject_change() CASCADE, replace that function or a trigger, rewrite a table with
--    ALTER COLUMN … TYPE … USING (no row trigger fires), or GRANT UPDATE to the application.
--    Event triggers (only a superuser creates, alters or drops one) in the schema casino_guard,
--    owned by the superuser, refuse each of these from any role but a superuser, once the
--    ledger holds its first event (before that, the migrations build the triggers). Installed
--    when this script runs as a superuser; every run checks that they are in place.
SELECT rolsuper AS casino_superuser FROM pg_roles WHERE rolname = current_user \gset
\if :casino_superuser
CREATE SCHEMA IF NOT EXISTS casino_guard;
ALTER SCHEMA casino_guard OWNER TO CURRENT_USER;
REVOKE ALL ON SCHEMA casino_guard FROM PUBLIC;
GRANT USAGE ON SCHEMA casino_guard TO PUBLIC;

-- Armed for good once the ledger holds an event (the first DDL after that, or this script,
-- notes it here): renaming the table away cannot disarm it. Only the superuser writes here.
CREATE TABLE IF NOT EXISTS casino_guard.armed (armed_at timestamptz NOT NULL DEFAULT now());
REVOKE ALL ON casino_guard.armed FROM PUBLIC;
-- search_path pinned: a temporary table named pg_trigger must not answer for the catalogue.
-- SECURITY DEFINER: any role's DDL (a temporary table) asks whether the ledger has begun.
CREATE OR REPLACE FUNCTION casino_guard.ledger_begun() RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $guard$
BEGIN
    IF EXISTS (SELECT 1 FROM casino_guard.armed) THEN
        RETURN true;
    END IF;
    IF to_regclass('public.ledger_event') IS NULL THEN
        RETURN false;  -- before the first migration
    END IF;
    IF NOT EXISTS (SELECT 1 FROM public.ledger_event) THEN
        RETURN false;  -- the migrations build the triggers before the first event
    END IF;
    BEGIN
        INSERT INTO casino_guard.armed DEFAULT VALUES;
    EXCEPTION WHEN read_only_sql_transaction THEN
        NULL;  -- armed all the same; noted by the next writable DDL
    END;
    RETURN true;
END $guard$;

-- The append-only tables: the three ledger tables, any table with a trigger calling
-- public.ledger_reject_change(), and any table with a trigger named <table>_no_change or
-- <table>_no_truncate (ledger/migrations/0002_append_only_triggers.py names them so).
CREATE OR REPLACE FUNCTION casino_guard.append_only_tables() RETURNS SETOF oid
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $guard$
    SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
       AND (c.relname IN ('ledger_event', 'ledger_posting', 'ledger_idempotencyrecord')
            OR EXISTS (SELECT 1 FROM pg_trigger t
                        WHERE t.tgrelid = c.oid
                          AND (t.tgfoid = to_regprocedure('public.ledger_reject_change()')
                               OR t.tgname IN (c.relname || '_no_change', c.relname || '_no_truncate'))))
$guard$;

-- What is wrong with the lock now (NULL: nothing). Read from the catalogue, whatever the command.
CREATE OR REPLACE FUNCTION casino_guard.lock_broken() RETURNS text
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $guard$
DECLARE
    found text;
    reject regprocedure := to_regprocedure('public.ledger_reject_change()');
BEGIN
    SELECT string_agg(name, ', ') INTO found
      FROM unnest(ARRAY['ledger_event', 'ledger_posting', 'ledger_idempotencyrecord']) AS name
     WHERE to_regclass('public.' || name) IS NULL;
    IF found IS NOT NULL THEN
        RETURN format('ledger table %s no longer exists (renamed, moved or dropped)', found);
    END IF;
    IF reject IS NULL THEN
        RETURN 'the function public.ledger_reject_change() no longer exists';
    END IF;
    -- Each of the three has its two append-only triggers.
    SELECT string_agg(format('%s%s', t, w), ', ') INTO found
      FROM unnest(ARRAY['ledger_event', 'ledger_posting', 'ledger_idempotencyrecord']) AS t,
           unnest(ARRAY['_no_change', '_no_truncate']) AS w
     WHERE NOT EXISTS (SELECT 1 FROM pg_trigger g WHERE g.tgrelid = ('public.' || t)::regclass AND g.tgname = t || w);
    IF found IS NOT NULL THEN
        RETURN format('trigger %s is missing', found);
    END IF;
    -- Every append-only trigger as the migration made it: BEFORE UPDATE OR DELETE FOR EACH ROW
    -- (tgtype 27) or BEFORE TRUNCATE FOR EACH STATEMENT (34), calling ledger_reject_change(),
    -- on no condition and no column list, enabled.
    SELECT string_agg(format('%s on %s', g.tgname, c.relname), ', ') INTO found
      FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
     WHERE g.tgrelid IN (SELECT casino_guard.append_only_tables())
       AND (g.tgfoid = reject OR g.tgname IN (c.relname || '_no_change', c.relname || '_no_truncate'))
       AND NOT (g.tgfoid = reject AND g.tgqual IS NULL AND cardinality(g.tgattr::int2[]) = 0
                AND g.tgenabled IN ('O', 'A')
                AND ((g.tgname = c.relname || '_no_change' AND g.tgtype = 27)
                     OR (g.tgname = c.relname || '_no_truncate' AND g.tgtype = 34)));
    IF found IS NOT NULL THEN
        RETURN format('append-only trigger %s is disabled or changed', found);
    END IF;
    -- No trigger of theirs disabled (the balance checks too).
    SELECT string_agg(format('%s on %s', g.tgname, c.relname), ', ') INTO found
      FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
     WHERE g.tgrelid IN (SELECT casino_guard.append_only_tables()) AND g.tgenabled NOT IN ('O', 'A');
    IF found IS NOT NULL THEN
        RETURN format('trigger %s is disabled', found);
    END IF;
    -- The hashed columns stay as the migrations made them: a dropped column loses every row's
    -- value, a renamed one let a new column with a constant default read in its place (neither
    -- rewrites the table, so on_rewrite does not see them). New columns are allowed.
    SELECT string_agg(format('%s.%s', t, col), ', ') INTO found
      FROM (VALUES ('ledger_event', ARRAY['position', 'stream', 'version', 'type', 'schema_version', 'data',
                                           'occurred_at', 'recorded_at', 'gaming_day', 'actor', 'correlation_id',
                                           'causation_id', 'idempotency_key', 'prev_hash', 'hash', 'seal']),
                   ('ledger_posting', ARRAY['id', 'account', 'amount_cents', 'currency', 'event_id']),
                   ('ledger_idempotencyrecord', ARRAY['key', 'fingerprint', 'result', 'position', 'created_at']))
           AS expected(t, cols), unnest(expected.cols) AS col
     WHERE NOT EXISTS (SELECT 1 FROM pg_attribute a
                        WHERE a.attrelid = ('public.' || t)::regclass AND a.attname = col
                          AND a.attnum > 0 AND NOT a.attisdropped);
    IF found IS NOT NULL THEN
        RETURN format('column %s was dropped or renamed', found);
    END IF;
    -- The constraints the migrations put on them stay: a dropped CHECK, UNIQUE or key lets in a
    -- row the application never writes (a position below 1, a stream version twice, a posting of
    -- no event, a key recorded twice). Not while deploy/migrate or deploy/restore holds the
    -- migration window open (a superuser opens it): pg_restore adds them after the rows.
    SELECT string_agg(format('%s on %s', k.name, k.t), ', ') INTO found
      FROM (VALUES ('ledger_event', 'ledger_event_pkey'), ('ledger_event', 'ledger_event_position_positive'),
                   ('ledger_event', 'ledger_event_stream_version_uniq'), ('ledger_posting', 'ledger_posting_pkey'),
                   ('ledger_idempotencyrecord', 'ledger_idempotencyrecord_pkey')) AS k(t, name)
     WHERE NOT casino_guard.migration_window_open()
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c
                        WHERE c.conrelid = ('public.' || k.t)::regclass AND c.conname = k.name);
    IF found IS NOT NULL THEN
        RETURN format('constraint %s was dropped', found);
    END IF;
    IF NOT casino_guard.migration_window_open()
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conrelid = 'public.ledger_posting'::regclass
                        AND c.contype = 'f' AND c.confrelid = 'public.ledger_event'::regclass) THEN
        RETURN 'the foreign key of ledger_posting to ledger_event was dropped';
    END IF;
    -- No rule (DO INSTEAD NOTHING swallows new rows), no row security (a policy hides rows from
    -- the application role), no trigger but the migrations' (a BEFORE INSERT one rewrites NEW).
    SELECT string_agg(format('rule %s on %s', r.rulename, c.relname), ', ') INTO found
      FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class
     WHERE r.ev_class IN (SELECT casino_guard.append_only_tables());
    IF found IS NOT NULL THEN
        RETURN format('%s added', found);
    END IF;
    -- No child table: its rows read as the ledger's, without the append-only triggers.
    SELECT string_agg(format('%s inherits %s', i.inhrelid::regclass, i.inhparent::regclass), ', ') INTO found
      FROM pg_inherits i WHERE i.inhparent IN (SELECT casino_guard.append_only_tables());
    IF found IS NOT NULL THEN
        RETURN format('table %s', found);
    END IF;
    -- Row security only as this script sets it up below: every role reads and writes every row
    -- (casino_everyone), and a role that may not append (the auditor's) reads the ledger below
    -- the first face-down card of a coup in play (casino_auditor_coups_in_play). Any other
    -- policy, or either one changed, or FORCE, is someone else's and may hide rows.
    SELECT string_agg(c.relname, ', ') INTO found
      FROM pg_class c WHERE c.oid IN (SELECT casino_guard.append_only_tables())
       AND (c.relforcerowsecurity
            OR (c.relrowsecurity AND NOT EXISTS (SELECT 1 FROM pg_policy p
                                                  WHERE p.polrelid = c.oid AND p.polname = 'casino_everyone'))
            OR EXISTS (SELECT 1 FROM pg_policy p
                        WHERE p.polrelid = c.oid
                          AND NOT ((p.polname = 'casino_everyone' AND p.polpermissive AND p.polcmd = '*'
                                    AND p.polroles = '{0}'::oid[]
                                    AND pg_get_expr(p.polqual, p.polrelid) = 'true'
                                    AND pg_get_expr(p.polwithcheck, p.polrelid) = 'true')
                                OR (p.polname = 'casino_auditor_coups_in_play' AND NOT p.polpermissive
                                    AND p.polcmd = 'r' AND 0 <> ALL (p.polroles)
                                    AND pg_get_expr(p.polqual, p.polrelid) IN (
                                        '("position" < COALESCE(( SELECT '
                                        'casino_guard.ledger_withheld_from() AS ledger_withheld_from), '
                                        '''9223372036854775807''::bigint))',
                                        '(head_position < COALESCE(( SELECT '
                                        'casino_guard.ledger_withheld_from() AS ledger_withheld_from), '
                                        '''9223372036854775807''::bigint))')
                                    AND NOT EXISTS (SELECT 1 FROM unnest(p.polroles) AS r(oid)
                                                     WHERE has_table_privilege(r.oid, c.oid, 'INSERT'))))));
    IF found IS NOT NULL THEN
        RETURN format('row level security enabled on %s other than deploy/postgres_roles.sql''s', found);
    END IF;
    -- The auditor's withholding stays as the superuser's run of this script set it: row security
    -- on, and its policy there, on each table it is set on (not while deploy/migrate or
    -- deploy/restore holds the migration window open: a new table gets its policy then).
    SELECT string_agg(t.tab, ', ') INTO found
      FROM unnest(ARRAY['ledger_event', 'ledger_auditentry', 'ledger_checkpointrecord',
                        'ledger_chainverification']) AS t(tab)
      JOIN pg_class c ON c.oid = to_regclass('public.' || t.tab)
     WHERE NOT casino_guard.migration_window_open()
       AND (NOT c.relrowsecurity
            OR NOT EXISTS (SELECT 1 FROM pg_policy p
                            WHERE p.polrelid = c.oid AND p.polname = 'casino_auditor_coups_in_play'));
    IF found IS NOT NULL THEN
        RETURN format('the auditor''s withholding of cards in play is off on %s (row security or its policy)', found);
    END IF;
    -- Those three columns keep their names: renamed, a grant on the new name would hand the
    -- auditor's role a shoe's order that the check below looks for under its own.
    SELECT string_agg(format('games_shoe.%s', col), ', ') INTO found
      FROM unnest(ARRAY['order', 'salt', 'drawn']) AS col
     WHERE to_regclass('public.games_shoe') IS NOT NULL AND to_regclass('public.ledger_event') IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM pg_attribute a
                        WHERE a.attrelid = 'public.games_shoe'::regclass AND a.attname = col
                          AND a.attnum > 0 AND NOT a.attisdropped);
    IF found IS NOT NULL THEN
        RETURN format('column %s was dropped or renamed', found);
    END IF;
    -- A shoe's order, salt and cards drawn are read by the roles that deal (they draw from it:
    -- UPDATE) and the owner; granted to a role that may not (the auditor's), it reads the next
    -- card of a shoe in play.
    SELECT string_agg(DISTINCT format('%s to %s', a.attname, r.rolname), ', ') INTO found
      FROM pg_attribute a CROSS JOIN pg_roles r
     WHERE NOT casino_guard.migration_window_open()
       AND to_regclass('public.games_shoe') IS NOT NULL AND to_regclass('public.ledger_event') IS NOT NULL
       AND a.attrelid = 'public.games_shoe'::regclass AND a.attname IN ('order', 'salt', 'drawn')
       AND NOT a.attisdropped AND NOT r.rolsuper AND r.rolname NOT LIKE 'pg\_%'  -- built-in roles: a superuser's grant
       AND r.oid <> (SELECT relowner FROM pg_class WHERE oid = 'public.games_shoe'::regclass)
       AND has_column_privilege(r.oid, 'public.games_shoe'::regclass, a.attname, 'SELECT')
       AND NOT has_table_privilege(r.oid, 'public.games_shoe'::regclass, 'UPDATE');
    IF found IS NOT NULL THEN
        RETURN format('a shoe''s undealt cards are readable by a role that deals nothing (games_shoe %s)', found);
    END IF;
    -- The auditor's role (the one the withholding policy names) by name, whatever else it was
    -- granted: it writes nothing, and reads no shoe's order, salt or cards drawn and no stored
    -- command answer (a deal's answer held a hole card), even with UPDATE granted beside them.
    SELECT string_agg(DISTINCT format('%s on %s to %s', p.priv, c.relname, r.rolname), ', ') INTO found
      FROM pg_policy pol JOIN pg_roles r ON r.oid = ANY (pol.polroles)
      CROSS JOIN pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      CROSS JOIN unnest(ARRAY['INSERT', 'UPDATE', 'DELETE', 'TRUNCATE']) AS p(priv)
     WHERE NOT casino_guard.migration_window_open()
       AND pol.polrelid = to_regclass('public.ledger_event') AND pol.polname = 'casino_auditor_coups_in_play'
       AND n.nspname = 'public' AND c.relkind IN ('r', 'p') AND has_table_privilege(r.oid, c.oid, p.priv);
    IF found IS NULL THEN
        SELECT string_agg(DISTINCT format('%s.%s to %s', t.relname, a.attname, r.rolname), ', ') INTO found
          FROM pg_policy pol JOIN pg_roles r ON r.oid = ANY (pol.polroles)
          CROSS JOIN pg_attribute a JOIN pg_class t ON t.oid = a.attrelid
         WHERE NOT casino_guard.migration_window_open()
           AND pol.polrelid = to_regclass('public.ledger_event') AND pol.polname = 'casino_auditor_coups_in_play'
           AND ((a.attrelid = to_regclass('public.games_shoe') AND a.attname IN ('order', 'salt', 'drawn'))
                OR (a.attrelid = to_regclass('public.ledger_idempotencyrecord') AND a.attname = 'result'))
           AND a.attnum > 0 AND NOT a.attisdropped
           AND has_column_privilege(r.oid, a.attrelid, a.attnum, 'SELECT');
    END IF;
    IF found IS NOT NULL THEN
        RETURN format('the auditor''s role was granted what it may not hold: %s', found);
    END IF;
    SELECT string_agg(format('%s on %s', g.tgname, c.relname), ', ') INTO found
      FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
     WHERE g.tgrelid IN (SELECT casino_guard.append_only_tables()) AND NOT g.tgisinternal
       AND g.tgname NOT IN (c.relname || '_no_change', c.relname || '_no_truncate')
       AND (c.relname, g.tgname) NOT IN (('ledger_event', 'ledger_event_balanced'),
                                         ('ledger_posting', 'ledger_posting_of_new_event'));
    IF found IS NOT NULL THEN
        RETURN format('trigger %s added', found);
    END IF;
    -- Nobody but the owner may change their rows or add triggers to them.
    SELECT string_agg(DISTINCT format('%s on %s to %s', a.privilege_type, c.relname,
                                      CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE pg_get_userbyid(a.grantee) END), ', ')
      INTO found
      FROM pg_class c CROSS JOIN LATERAL aclexplode(c.relacl) a
     WHERE c.oid IN (SELECT casino_guard.append_only_tables()) AND a.grantee <> c.relowner
       AND a.privilege_type IN ('UPDATE', 'DELETE', 'TRUNCATE', 'TRIGGER');
    IF found IS NULL THEN
        SELECT string_agg(DISTINCT format('%s (%s) on %s to %s', a.privilege_type, t.attname, c.relname,
                                          CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE pg_get_userbyid(a.grantee) END), ', ')
          INTO found
          FROM pg_attribute t JOIN pg_class c ON c.oid = t.attrelid CROSS JOIN LATERAL aclexplode(t.attacl) a
         WHERE c.oid IN (SELECT casino_guard.append_only_tables()) AND a.grantee <> c.relowner
           AND a.privilege_type = 'UPDATE';
    END IF;
    IF found IS NOT NULL THEN
        RETURN format('granting %s', found);
    END IF;
    -- The search path stays pinned (step 1 of this script): each role that owns, appends to or
    -- audits the ledger keeps search_path = public as its own setting, with no setting of its own
    -- in this database over it; and the database sets none (a role without a setting of its
    -- own would take it). The owner may change its own role's settings and its database's, and
    -- no event trigger sees ALTER ROLE or ALTER DATABASE: it is found here instead.
    SELECT string_agg(DISTINCT r.rolname, ', ') INTO found
      FROM pg_roles r
     WHERE NOT r.rolsuper AND r.rolname NOT LIKE 'pg\_%'
       AND (r.oid = (SELECT relowner FROM pg_class WHERE oid = 'public.ledger_event'::regclass)
            OR has_table_privilege(r.oid, 'public.ledger_event'::regclass, 'INSERT')
            OR r.oid IN (SELECT unnest(p.polroles) FROM pg_policy p
                          WHERE p.polrelid = 'public.ledger_event'::regclass
                            AND p.polname = 'casino_auditor_coups_in_play'))
       AND (NOT EXISTS (SELECT 1 FROM pg_db_role_setting s
                         WHERE s.setrole = r.oid AND s.setdatabase = 0 AND 'search_path=public' = ANY (s.setconfig))
            OR EXISTS (SELECT 1 FROM pg_db_role_setting s CROSS JOIN unnest(s.setconfig) AS c(setting)
                        WHERE s.setrole = r.oid AND c.setting LIKE 'search\_path=%'
                          AND s.setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())));
    IF found IS NOT NULL THEN
        RETURN format('the search path of %s is no longer pinned to public (ALTER ROLE … SET search_path)', found);
    END IF;
    SELECT string_agg(c.setting, ', ') INTO found
      FROM pg_db_role_setting s CROSS JOIN unnest(s.setconfig) AS c(setting)
     WHERE s.setrole = 0 AND s.setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND c.setting LIKE 'search\_path=%';
    IF found IS NOT NULL THEN
        RETURN format('the database sets %s (ALTER DATABASE … SET search_path)', found);
    END IF;
    RETURN NULL;
END $guard$;

CREATE OR REPLACE FUNCTION casino_guard.refuse(why text) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $guard$
BEGIN
    RAISE EXCEPTION 'the ledger is append-only and its lock stays: %', why
        USING ERRCODE = 'insufficient_privilege',
              HINT = 'casino_guard (deploy/postgres_roles.sql) refuses this to every role but a superuser.';
END $guard$;

-- Whether this command is held to the lock: not a superuser's, and the ledger has begun.
CREATE OR REPLACE FUNCTION casino_guard.held() RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $guard$
    SELECT NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AND casino_guard.ledger_begun()
$guard$;

-- Before each command: arm if the ledger has begun (the command may rename it away).
CREATE OR REPLACE FUNCTION casino_guard.before_ddl() RETURNS event_trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $guard$
BEGIN
    PERFORM casino_guard.ledger_begun();
END $guard$;

CREATE OR REPLACE FUNCTION casino_guard.after_ddl() RETURNS event_trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $guard$
DECLARE
    why text;
BEGIN
    IF NOT casino_guard.held() THEN
        RETURN;
    END IF;
    -- A function the append-only tables' triggers call, replaced or altered (its body is the lock).
    SELECT string_agg(cmd.object_identity, ', ') INTO why
      FROM pg_event_trigger_ddl_commands() cmd
     WHERE cmd.classid = 'pg_proc'::regclass
       AND (cmd.objid IN (SELECT g.tgfoid FROM pg_trigger g WHERE g.tgrelid IN (SELECT casino_guard.append_only_tables()))
            OR cmd.objid = to_regprocedure('public.ledger_reject_change()'));
    IF why IS NOT NULL THEN
        PERFORM casino_guard.refuse(format('%s %s: a ledger trigger''s function', tg_tag, why));
    END IF;
    why := casino_guard.lock_broken();
    IF why IS NOT NULL THEN
        PERFORM casino_guard.refuse(format('%s: %s', tg_tag, why));
    END IF;
END $guard$;

CREATE OR REPLACE FUNCTION casino_guard.on_drop() RETURNS event_trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $guard$
DECLARE
    why text;
BEGIN
    IF NOT casino_guard.held() THEN
        RETURN;
    END IF;
    SELECT string_agg(format('%s %s', o.object_type, o.object_identity), ', ') INTO why
      FROM pg_event_trigger_dropped_objects() o
     WHERE o.schema_name = 'public'
       AND (   (o.object_type = 'table' AND o.object_name IN ('ledger_event', 'ledger_posting', 'ledger_idempotencyrecord'))
            OR (o.object_type = 'function' AND o.object_identity LIKE 'public.ledger\_%')
            OR (o.object_type = 'trigger'
                AND (o.address_names[2] IN ('ledger_event', 'ledger_posting', 'ledger_idempotencyrecord')
                     OR o.address_names[3] LIKE '%\_no\_change' OR o.address_names[3] LIKE '%\_no\_truncate')));
    IF why IS NOT NULL THEN
        PERFORM casino_guard.refuse(format('%s drops %s', tg_tag, why));
    END IF;
END $guard$;

-- ALTER TABLE … ALTER COLUMN … TYPE … USING rewrites every row without an UPDATE trigger.
CREATE OR REPLACE FUNCTION casino_guard.on_rewrite() RETURNS event_trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $guard$
BEGIN
    IF casino_guard.held() AND pg_event_trigger_table_rewrite_oid() IN (SELECT casino_guard.append_only_tables()) THEN
        PERFORM casino_guard.refuse(format('%s rewrites %s', tg_tag, pg_event_trigger_table_rewrite_oid()::regclass));
    END IF;
END $guard$;

-- The schema is closed to every role but a superuser: no schema may be created, renamed or
-- handed over (a schema named casino_app would shadow the ledger on the default search path),
-- nothing may be put in a schema but public, and tables, views, functions, types, rules and
-- triggers are created in public only while deploy/migrate holds the migration window open
-- (a superuser's row in casino_guard.migration_window, which only a superuser writes). Indexes,
-- new columns and temporary tables need no window.
CREATE TABLE IF NOT EXISTS casino_guard.migration_window (
    opened_at timestamptz NOT NULL DEFAULT now(),
    open_until timestamptz NOT NULL
);
REVOKE ALL ON casino_guard.migration_window FROM PUBLIC;

CREATE OR REPLACE FUNCTION casino_guard.migration_window_open() RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $guard$
    SELECT EXISTS (SELECT 1 FROM casino_guard.migration_window WHERE open_until > now())
$guard$;

CREATE OR REPLACE FUNCTION casino_guard.on_create() RETURNS event_trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $guard$
DECLARE
    why text;
BEGIN
    IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
        RETURN;
    END IF;
    SELECT string_agg(format('%s %s', cmd.command_tag, coalesce(cmd.object_identity, '')), ', ') INTO why
      FROM pg_event_trigger_ddl_commands() cmd
     WHERE cmd.command_tag IN ('CREATE SCHEMA', 'ALTER SCHEMA')
        OR (cmd.schema_name IS NOT NULL AND cmd.schema_name <> 'public' AND cmd.schema_name NOT LIKE 'pg\_temp%');
    IF why IS NOT NULL THEN
        RAISE EXCEPTION 'the database''s schemas are closed: % (only public holds the application''s tables)', why
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'casino_guard (deploy/postgres_roles.sql) refuses schemas to every role but a superuser.';
    END IF;
    -- A publication or a subscription sends the rows out (the ledger's, cards of coups in play
    -- included) or lets rows in: a superuser sets one up, never the roles that own or use the data.
    IF tg_tag IN ('CREATE PUBLICATION', 'ALTER PUBLICATION', 'CREATE SUBSCRIPTION', 'ALTER SUBSCRIPTION') THEN
        RAISE EXCEPTION '% is a superuser''s: the ledger''s rows leave or enter the database only as the superuser sets it up', tg_tag
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'casino_guard (deploy/postgres_roles.sql) refuses publications and subscriptions to every role but a superuser.';
    END IF;
    IF casino_guard.migration_window_open() THEN
        RETURN;
    END IF;
    -- The ledger's own tables change only in a migration: a column's type, a constraint (a CHECK
    -- that stops appends at some position), a default. An index needs no window.
    SELECT string_agg(format('%s %s', cmd.command_tag, coalesce(cmd.object_identity, '')), ', ') INTO why
      FROM pg_event_trigger_ddl_commands() cmd
     WHERE cmd.command_tag = 'ALTER TABLE' AND cmd.classid = 'pg_class'::regclass
       AND cmd.objid IN (SELECT casino_guard.append_only_tables());
    IF why IS NOT NULL AND casino_guard.ledger_begun() THEN
        RAISE EXCEPTION 'the ledger''s tables change only in a migration: %', why
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'deploy/migrate opens the migration window (as the superuser of CASINO_DB_ADMIN_URL) while the migrations run.';
    END IF;
    SELECT string_agg(format('%s %s', cmd.command_tag, coalesce(cmd.object_identity, '')), ', ') INTO why
      FROM pg_event_trigger_ddl_commands() cmd
     WHERE cmd.command_tag IN ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO', 'CREATE VIEW',
                               'CREATE MATERIALIZED VIEW', 'CREATE FOREIGN TABLE', 'CREATE FUNCTION',
                               'CREATE PROCEDURE', 'CREATE AGGREGATE', 'CREATE OPERATOR', 'CREATE TYPE',
                               'CREATE DOMAIN', 'CREATE SEQUENCE', 'CREATE RULE', 'CREATE TRIGGER',
                               'CREATE EXTENSION', 'CREATE CAST', 'CREATE SERVER', 'CREATE FOREIGN DATA WRAPPER')
       AND (cmd.schema_name IS NULL OR cmd.schema_name NOT LIKE 'pg\_temp%');
    IF why IS NOT NULL THEN
        RAISE EXCEPTION 'the database''s schema is closed outside a migration: %', why
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'deploy/migrate opens the migration window (as the superuser of CASINO_DB_ADMIN_URL) while the migrations run.';
    END IF;
END $guard$;

REVOKE ALL ON ALL FUNCTIONS IN SCHEMA casino_guard FROM PUBLIC;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA casino_guard TO PUBLIC;
DROP EVENT TRIGGER IF EXISTS casino_guard_before_ddl;
DROP EVENT TRIGGER IF EXISTS casino_guard_after_ddl;
DROP EVENT TRIGGER IF EXISTS casino_guard_on_drop;
DROP EVENT TRIGGER IF EXISTS casino_guard_on_rewrite;
CREATE EVENT TRIGGER casino_guard_before_ddl ON ddl_command_start EXECUTE FUNCTION casino_guard.before_ddl();
CREATE EVENT TRIGGER casino_guard_after_ddl ON ddl_command_end EXECUTE FUNCTION casino_guard.after_ddl();
CREATE EVENT TRIGGER casino_guard_on_drop ON sql_drop EXECUTE FUNCTION casino_guard.on_drop();
DROP EVENT TRIGGER IF EXISTS casino_guard_on_create;
CREATE EVENT TRIGGER casino_guard_on_rewrite ON table_rewrite EXECUTE FUNCTION casino_guard.on_rewrite();
CREATE EVENT TRIGGER casino_guard_on_create ON ddl_command_end EXECUTE FUNCTION casino_guard.on_create();
SELECT casino_guard.ledger_begun() AS casino_guard_armed \gset

-- A coup in play, as the auditor's role reads it: a card dealt face down (a hole card, a stud
-- hand's down cards: `face` down or hole) stays out of its reads until the coup's stream holds
-- RoundSettled or RoundVoided, as the application's readers withhold it (ledger/withheld.py).
-- Not only the card's row: every hash from it onwards gives the card away (52 guesses against
-- the envelope shown), so the auditor reads the ledger, the audit trail's hashes, the signed
-- checkpoints' and the verifications' heads only below the first such card; the rest shows
-- once the coup is over. Only a card dealt on its coup's own stream, within 12 hours of the
-- ledger's head, is withheld: a coup is played in minutes, and an event dressed up as a card of
-- a coup that never ends (to hide an edit behind it from the auditor's verify for ever) is read
-- once the ledger has gone 12 hours past it, and the edit found. A real coup left in play that
-- long is listed in the day's exception log ("coups left in play", audit/exceptions.py) to be
-- settled or voided. A sealed range holds none (seal_gaming_day refuses to seal one), so
-- only the events after the latest seal's range are searched. SECURITY DEFINER: the search
-- reads past the auditor's own policy (a policy may not read its own table).
CREATE OR REPLACE FUNCTION casino_guard.ledger_withheld_from() RETURNS bigint
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $guard$
DECLARE
    sealed bigint;
    head_at timestamptz;
    first_withheld bigint;
BEGIN
    IF to_regclass('public.ledger_event') IS NULL THEN
        RETURN NULL;
    END IF;
    SELECT (s.data->>'last_position')::bigint INTO sealed FROM public.ledger_event s
     WHERE s.type = 'GamingDaySealed' ORDER BY s.position DESC LIMIT 1;
    SELECT h.recorded_at INTO head_at FROM public.ledger_event h ORDER BY h.position DESC LIMIT 1;
    SELECT min(e.position) INTO first_withheld FROM public.ledger_event e
     WHERE e.position > coalesce(sealed, 0)
       AND e.type = 'CardDealt' AND e.stream = 'round/' || (e.data->>'round')
       AND e.recorded_at > head_at - interval '12 hours'
       AND e.data ? 'card' AND e.data->>'face' IN ('down', 'hole')
       AND NOT EXISTS (SELECT 1 FROM public.ledger_event o
                        WHERE o.stream = 'round/' || (e.data->>'round')
                          AND o.type IN ('RoundSettled', 'RoundVoided'));
    RETURN first_withheld;
END $guard$;
REVOKE ALL ON FUNCTION casino_guard.ledger_withheld_from() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION casino_guard.ledger_withheld_from() TO PUBLIC;

-- Every other role reads and writes as before (casino_everyone); the owner owns the tables and
-- is not subject to their policies. (SELECT …): the search runs once a query, not once a row.
SELECT format('ALTER TABLE public.%I ENABLE ROW LEVEL SECURITY', t.tab),
       format('DROP POLICY IF EXISTS casino_everyone ON public.%I', t.tab),
       format('CREATE POLICY casino_everyone ON public.%I USING (true) WITH CHECK (true)', t.tab),
       format('DROP POLICY IF EXISTS casino_auditor_coups_in_play ON public.%I', t.tab),
       format('CREATE POLICY casino_auditor_coups_in_play ON public.%I AS RESTRICTIVE FOR SELECT TO %I'
              ' USING (%I < coalesce((SELECT casino_guard.ledger_withheld_from()), 9223372036854775807))',
              t.tab, :'auditor_role', t.col)
  FROM (VALUES ('ledger_event', 'position'), ('ledger_auditentry', 'position'),
               ('ledger_checkpointrecord', 'position'), ('ledger_chainverification', 'head_position')) AS t(tab, col)
 WHERE to_regclass('public.' || t.tab) IS NOT NULL \gexec
\endif
-- The guard is in place (whoever runs this): its four event triggers enabled, owned by a
-- superuser, and the owner role cannot change their schema.
SELECT count(*) <> 5 AS casino_guard_missing
  FROM pg_event_trigger e JOIN pg_roles r ON r.oid = e.evtowner JOIN pg_proc p ON p.oid = e.evtfoid
  JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_roles o ON o.oid = n.nspowner
 WHERE e.evtname IN ('casino_guard_before_ddl', 'casino_guard_after_ddl', 'casino_guard_on_drop', 'casino_guard_on_rewrite',
                     'casino_guard_on_create')
   AND e.evtenabled IN ('O', 'A') AND r.rolsuper AND o.rolsuper AND n.nspname = 'casino_guard'
   AND NOT has_schema_privilege(:'owner_role', n.oid, 'CREATE') \gset
\if :casino_guard_missing
  DO $$ BEGIN RAISE EXCEPTION 'postgres_roles.sql: the casino_guard event triggers are missing: run this script once as a superuser (deploy/migrate with CASINO_DB_ADMIN_URL)'; END $$;
\endif

-- 7. Check what matters, from the catalogue, and fail loudly if it does not hold.
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
-- 8. Nothing answers for the application's tables but public: each role's search path is
--    pinned (step 1, a superuser's run), and no other schema holds a relation named like one of
--    public's, nor is named after one of the roles ("$user" on an unpinned search path).
SELECT string_agg(r, ', ') AS casino_unpinned
  FROM unnest(ARRAY[:'owner_role', :'app_role', :'auditor_role']) AS r
 WHERE NOT EXISTS (
     SELECT 1 FROM pg_db_role_setting s JOIN pg_roles o ON o.oid = s.setrole
      WHERE o.rolname = r AND s.setdatabase = 0 AND 'search_path=public' = ANY (s.setconfig)) \gset
\if :{?casino_unpinned}
  SELECT :'casino_unpinned' <> '' AS casino_unpinned_found \gset
  \if :casino_unpinned_found
    \echo 'postgres_roles.sql: search_path is not pinned to public for' :casino_unpinned
    DO $$ BEGIN RAISE EXCEPTION 'postgres_roles.sql: run this script once as a superuser (deploy/migrate with CASINO_DB_ADMIN_URL) to pin the roles'' search_path'; END $$;
  \endif
\endif
SELECT string_agg(format('%I.%I', n.nspname, c.relname), ', ' ORDER BY n.nspname, c.relname) AS casino_shadows
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname NOT IN ('public', 'pg_catalog', 'information_schema', 'pg_toast', 'casino_guard')
   AND n.nspname NOT LIKE 'pg\_temp\_%' AND n.nspname NOT LIKE 'pg\_toast\_temp\_%'
   AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
   AND (c.relname IN (SELECT p.relname FROM pg_class p WHERE p.relnamespace = 'public'::regnamespace)
        OR n.nspname IN (:'owner_role', :'app_role', :'auditor_role')) \gset
\if :{?casino_shadows}
  SELECT :'casino_shadows' <> '' AS casino_shadows_found \gset
  \if :casino_shadows_found
    \echo 'postgres_roles.sql: relations outside public that could answer for the application''s tables:' :casino_shadows
    DO $$ BEGIN RAISE EXCEPTION 'postgres_roles.sql: a schema other than public holds a copy of an application table (see above): drop it'; END $$;
  \endif
\endif
SELECT count(*) AS casino_append_only_count FROM casino_append_only \gset
COMMIT;
\echo postgres_roles.sql: :dbname ready: owned by :owner_role; :app_role without UPDATE/DELETE/TRUNCATE on :casino_append_only_count append-only tables; :auditor_role read-only
