"""Curation's typed errors, subclasses of the engine's so memoria.api.errors maps them without knowing them."""

from __future__ import annotations

from memoria.errors import NodeNotFound, WriteConflict


class CurationConflict(WriteConflict):
    """The item is no longer what the caller (or the audit entry) saw: nothing was written (HTTP 409)."""


class StaleEdit(CurationConflict):
    """The change cannot be made on the item as it is (another version, an edge ended already or existing already,
    an entry undone, an item no change may touch): the same request fails the same way until the caller reads the
    item again and asks for something else, so it carries no retry hint."""

    retry_after = None


class ItemNotFound(NodeNotFound):
    """No such edge, entity or audit entry in this group; like a group one cannot see, it answers 404 without
    telling whether the id exists elsewhere."""
