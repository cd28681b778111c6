"""Curation's typed errors, subclasses of the engine's so memoria.api.errors maps them without knowing them."""

from __future__ import annotations

from memoria.errors import NodeNotFound, WriteConflict


class CurationConflict(WriteConflict):
    """The item is no longer what the caller (or the audit entry) saw: nothing was written (HTTP 409)."""


class StaleEdit(CurationConflict):
    """The change was made on a state that is gone (another version, an edge ended already, an entry undone): the
    same request fails the same way until the caller reads the item again, so it carries no retry hint."""

    retry_after = None


class ItemNotFound(NodeNotFound):
    """No such edge, entity or audit entry in this group; like a group one cannot see, it answers 404 without
    telling whether the id exists elsewhere."""
