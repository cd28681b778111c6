"""What a message is a reply to: the messages just before it, kept with it so search finds it by them.

A turn of a conversation often says little alone ("Yes, the one by the lake!"): what it answers is in the
turns before it. The pipeline already reads an episode's prior episodes as extraction context (Graphiti's
last episodes, memoria.ingest.context); for a message it also stores the texts of the messages just before it,
oldest first, as `preceding_text`. The episodes view indexes them with the message's own content for BM25
(memoria.readmodel.scopes), so a question about what was said finds the reply too. They are not embedded and
never shown as the episode's content.

Why two: the number of preceding messages was chosen by cross-validation on the shared LoCoMo conversations
among 0–3 (docs/evaluation.md, "Stemming and message context"): 2 in every fold, both by questions and by
leaving out whole conversations. Documents (`text`, `json`) stand alone and get none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import neo4j

from memoria.graph import driver, kinds
from memoria.graph.searchable import PRECEDING_PROPERTY
from memoria.graph.versions import group_vectors_stamp
from memoria.ingest.context import PriorEpisode

__all__ = ["PRECEDING_MESSAGES", "PRECEDING_PROPERTY", "preceding_backfill", "preceding_text"]

MESSAGE_SOURCE = "message"
PRECEDING_MESSAGES = 2


def preceding_text(*, source: str, context: Sequence[PriorEpisode], count: int = PRECEDING_MESSAGES) -> str | None:
    """The contents of the `count` newest messages of `context` (newest first, as the pipeline reads it), oldest
    first, one a line; None for an episode that is not a message, or has no message before it."""
    if source != MESSAGE_SOURCE or count <= 0:
        return None
    messages = [prior.content for prior in context if prior.source == MESSAGE_SOURCE and prior.content][:count]
    return "\n".join(reversed(messages)) or None


# Every message of a group with what the order needs; the order itself is made in Python (ids compared with their
# numbers as numbers), since turns of one session share a reference time and a batch shares its created_at.
GROUP_MESSAGES = f"""
MATCH (e:{kinds.EPISODE} {{group_id: $group, source: $source}})
RETURN e.id AS id, coalesce(e.valid_at, '') AS valid_at, coalesce(e.created_at, '') AS created_at,
       coalesce(e.content, '') AS content, e.{PRECEDING_PROPERTY} AS preceding
"""
# Matched as Memory, the label the (group_id, id) key is declared on (memoria.ppr.search_walk.EPISODE_TEXTS).
PRECEDING_STORE = f"""
UNWIND $rows AS row
MATCH (e:{kinds.MEMORY_LABEL} {{group_id: $group, id: row.id}})
WHERE e:{kinds.EPISODE}
SET e.{PRECEDING_PROPERTY} = row.preceding
RETURN count(e) AS stored
"""
BACKFILL_BATCH = 2_000
_DIGITS = re.compile(r"(\d+)")


def _natural(text: str) -> tuple[tuple[int, int | str], ...]:
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in _DIGITS.split(text) if part)


def preceding_backfill(*, group: str) -> int:
    """Write `preceding_text` for the group's stored messages whose value differs from what their order gives:
    messages stored before it existed, or brought by an import. Returns how many were written.

    The order is reference time, then created_at, then id with its numbers compared as numbers ("turn 2" before
    "turn 10"): the pipeline knows the order a batch came in, a store knows only these. Views re-read the
    written messages (a stamp naming them), graph projections are not reloaded (no graph change).
    """
    rows = driver.read(GROUP_MESSAGES, group=group, source=MESSAGE_SOURCE)
    rows.sort(key=lambda row: (row["valid_at"], row["created_at"], _natural(row["id"])))
    changed = []
    for position, row in enumerate(rows):
        before = rows[max(0, position - PRECEDING_MESSAGES) : position]
        context = [PriorEpisode(p["id"], p["id"], p["content"], MESSAGE_SOURCE, p["valid_at"]) for p in before]
        wanted = preceding_text(source=MESSAGE_SOURCE, context=context[::-1])
        if wanted != row["preceding"]:
            changed.append({"id": row["id"], "preceding": wanted})
    for start in range(0, len(changed), BACKFILL_BATCH):
        batch = changed[start : start + BACKFILL_BATCH]

        def work(tx: neo4j.ManagedTransaction, batch: list[dict[str, Any]] = batch) -> None:
            tx.run(PRECEDING_STORE, rows=batch, group=group).consume()
            group_vectors_stamp(tx, group, touched=[row["id"] for row in batch])

        driver.write_transaction(work)
    return len(changed)
