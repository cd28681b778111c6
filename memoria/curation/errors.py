"""Curation's typed errors, subclasses of the engine's so memoria.api.errors maps them without knowing them."""

from __future__ import annotations

from memoria.errors import NodeNotFound, WriteConflict


class CurationConflict(WriteConflict):
    """The item is no longer what the caller (or the audit entry) saw: nothing was written (HTTP 409)."""


class ItemNotFound(NodeNotFound):
    """No such edge, entity or audit entry in this group; like a group one cannot see, it answers 404 without
    telling whether the id exists elsewhere."""
