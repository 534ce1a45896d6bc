"""A seventh game that lives only in the tests, to prove a game plugs into the house through
the registry (``games.catalog``) alone: its pure rule (``rules``), its services (``services``)
and its ``GameSpec`` (``spec``), registered by the test that plays it. Nothing outside this
package names it."""
