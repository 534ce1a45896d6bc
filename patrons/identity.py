"""The patrons' identity as their events say it should be, against the live registry rows.

Replays ``PatronRegistered``, ``PatronIdentityRecorded`` and ``PatronIdentityErased`` into, per
patron code, the kind and the digests of the name and of the document (``ledger.identity``),
and names every row that differs (``manage.py ledger verify``, ``/metrics``). A digest the
events never carried (a ledger older than the digests) is not compared. The stored
``document_key`` is derived, never in an event: a row whose key is not ``document_key`` of its
document (written around the services, it could let a look-alike past the unique constraint)
is named with field ``document_key``, unless its document already differs; the same for
``name_key`` (``patrons.names.name_key`` of its name: a stale one hides the patron from a search).
"""

from __future__ import annotations

from collections.abc import Iterator

from ledger.event_seals import SEAL_FIELDS, sealed_rows
from ledger.identity import Mismatch, digest_matches
from ledger.models import Event

from .documents import document_key
from .models import Patron
from .names import name_key
from .services.patrons import IDENTITY_FIELDS, identity_digests

KIND = "patron"
EVENT_TYPES = ("PatronRegistered", "PatronIdentityRecorded", "PatronIdentityErased")


def replayed_patrons() -> dict[str, dict]:
    """``{code: {"kind", "name"?, "document"?}}`` (the digests) from the identity events, in ledger order."""
    patrons: dict[str, dict] = {}
    rows = Event.objects.filter(type__in=EVENT_TYPES).order_by("position").values_list(*SEAL_FIELDS, "type", "data")
    for type_, data in sealed_rows(rows.iterator(chunk_size=2000)):
        code = data.get("patron")
        if not isinstance(code, str):
            continue
        if type_ == "PatronRegistered":
            patrons[code] = {"kind": data.get("kind")}
        elif code not in patrons:
            patrons[code] = {}  # an identity for a patron never registered: his row is flagged
            continue
        elif type_ == "PatronIdentityRecorded":
            patrons[code]["kind"] = Patron.Kind.IDENTIFIED
        if type_ == "PatronIdentityErased":
            data = identity_digests(code, name="", document="")
        for field in IDENTITY_FIELDS:
            if f"{field}_digest" in data:
                patrons[code][field] = data[f"{field}_digest"]
            else:
                patrons[code].pop(field, None)  # changed, to what the event does not say
    return patrons


def patron_mismatches() -> Iterator[Mismatch]:
    """Every patron whose kind, name or document differs from his events, or whose document key
    or name key from his document or name (never their values)."""
    patrons = replayed_patrons()
    seen = set()
    rows = Patron.objects.order_by("code").values_list("code", "kind", "name", "document", "document_key", "name_key")
    for code, kind, name, document, key, searched in rows:
        seen.add(code)
        patron = patrons.get(code)
        if not patron or "kind" not in patron:
            yield Mismatch(KIND, code, "(no event)")
            continue
        if kind != patron["kind"]:
            yield Mismatch(KIND, code, "kind")
        differ = [
            field
            for field, value in (("name", name), ("document", document))
            if field in patron and not digest_matches(patron[field], f"patron {field}", code, value)
        ]
        if "document" not in differ and key != document_key(document):
            differ.append("document_key")
        if "name" not in differ and searched != name_key(name):
            differ.append("name_key")
        for field in differ:
            yield Mismatch(KIND, code, field)
    for code in sorted(set(patrons) - seen):
        if "kind" in patrons[code]:
            yield Mismatch(KIND, code, "(no row)")
