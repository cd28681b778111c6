"""The audit trail: one entry per curation change, with the states before and after, and the items it touched."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

EDGE = "edge"
ENTITY = "entity"
EPISODE = "episode"

EDGE_UPDATE = "edge.update"
EDGE_INVALIDATE = "edge.invalidate"
EDGE_DELETE = "edge.delete"
EDGE_CREATE = "edge.create"
ENTITY_MERGE = "entity.merge"
EPISODE_DELETE = "episode.delete"
UNDO = "undo"
ACTIONS: tuple[str, ...] = (EDGE_UPDATE, EDGE_INVALIDATE, EDGE_DELETE, EDGE_CREATE, ENTITY_MERGE, EPISODE_DELETE, UNDO)


class AuditEntry(models.Model):
    """Who changed what in which group, when, and the graph state of the touched items before and after.

    `before` and `after` are memoria.curation.state.GraphState JSON over the same scope, so undo
    applies `before` once the graph still holds `after`.
    """

    group = models.CharField(max_length=64)
    created_at = models.DateTimeField(default=timezone.now)
    actor = models.CharField(max_length=150)
    action = models.CharField(max_length=32, choices=[(action, action) for action in ACTIONS])
    item_kind = models.CharField(max_length=16)  # the item the change is about: edge, entity or episode
    item_id = models.CharField(max_length=200)
    before = models.JSONField()
    after = models.JSONField()
    undoes = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="undo_entries")
    undone_by = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["group", "-id"], name="curation_entry_group_newest")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.action} {self.item_kind} {self.item_id} by {self.actor}"


class AuditItem(models.Model):
    """One item an entry touched (a merge touches both entities and every fact it moves): what "the latest change
    to an item" and the audit filter look up."""

    entry = models.ForeignKey(AuditEntry, on_delete=models.CASCADE, related_name="items")
    group = models.CharField(max_length=64)
    kind = models.CharField(max_length=16)
    item_id = models.CharField(max_length=200)

    class Meta:
        indexes = [models.Index(fields=["group", "item_id", "entry"], name="curation_item_lookup")]
        constraints = [models.UniqueConstraint(fields=["entry", "kind", "item_id"], name="curation_item_once")]

    def __str__(self) -> str:
        return f"{self.kind} {self.item_id} in #{self.entry_id}"
