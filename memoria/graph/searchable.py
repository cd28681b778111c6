"""The searchable text of a node or a fact: what its vector embeds and what BM25 finds it by, written once as
Cypher (for the server: reindex, change detection, the views' reads) and once as Python (for writers that embed
before they store), and a test holds the two to the same answer.

Everything an item has is in it, so a title or a name is found as surely as the content: an episode's name and
content, an entity's or a community's name and summary, a fact's "source-name relation target-name" and its fact
sentence. Parts are joined by a line break and empty parts are left out, so an item lacking one part reads as
its other part alone.
"""

from __future__ import annotations

from memoria.graph import kinds

# Which definition a stored vector was made from, recorded beside it (schema.VECTOR_TEXT). 1 was name-only
# entities and communities, content-only episodes and fact-only facts; vectors stored before versions were
# recorded count as 1. Raise it whenever a definition below changes: `reindex` re-embeds the older ones.
SEARCHABLE_TEXT_VERSION = 2
LEGACY_TEXT_VERSION = 1
PART_SEPARATOR = "\n"  # between the parts of an item's text
# A message episode's preceding messages (memoria.ingest.preceding): found by BM25 with its content, not embedded.
PRECEDING_PROPERTY = "preceding_text"


def with_preceding(content: str, preceding: str | None) -> str:
    """A message's content as BM25 indexes it: its preceding messages in front, in the same field (the views
    and the cross-validation that chose the count both read it from here)."""
    return f"{preceding}{PART_SEPARATOR}{content}" if preceding else content


WORD_SEPARATOR = " "  # between a fact's source name, relation words and target name


def _joined_cypher(parts: tuple[str, ...], separator: str) -> str:
    """A Cypher expression joining the non-empty parts (each a string expression, never null) with separator."""
    escaped = separator.replace("\\", "\\\\").replace("\n", "\\n").replace("'", "\\'")
    joined = parts[0]
    for part in parts[1:]:
        joined = (
            f"CASE WHEN {joined} = '' THEN {part} WHEN {part} = '' THEN {joined} "
            f"ELSE {joined} + '{escaped}' + {part} END"
        )
    return f"({joined})"


def _joined(parts: tuple[str, ...], separator: str) -> str:
    return separator.join(part for part in parts if part)


def relation_words(relation: str) -> str:
    """A stored relation as words (WORKS_AT: WORKS AT), so BM25 and the model read it as language."""
    return relation.replace("_", " ")


# `n` is a node; `a`-[`r`]->`b` a fact and its ends.
_NODE_DETAIL = f"CASE WHEN '{kinds.EPISODE}' IN labels(n) THEN coalesce(n.content, '') ELSE coalesce(n.summary, '') END"
NODE_TEXT = _joined_cypher(("coalesce(n.name, '')", f"({_NODE_DETAIL})"), PART_SEPARATOR)
FACT_TRIPLE = _joined_cypher(
    ("coalesce(a.name, '')", "replace(coalesce(r.relation, ''), '_', ' ')", "coalesce(b.name, '')"), WORD_SEPARATOR
)
FACT_TEXT = _joined_cypher((FACT_TRIPLE, "coalesce(r.fact, '')"), PART_SEPARATOR)


def node_text(*, is_episode: bool, name: str | None, content: str | None = None, summary: str | None = None) -> str:
    """NODE_TEXT in Python: an episode's name and content, an entity's or community's name and summary."""
    detail = content if is_episode else summary
    return _joined((name or "", detail or ""), PART_SEPARATOR)


def fact_triple(*, source_name: str | None, relation: str | None, target_name: str | None) -> str:
    """FACT_TRIPLE in Python: "source-name relation words target-name"."""
    return _joined((source_name or "", relation_words(relation or ""), target_name or ""), WORD_SEPARATOR)


def fact_text(*, source_name: str | None, relation: str | None, target_name: str | None, fact: str | None) -> str:
    """FACT_TEXT in Python: the triple, then the fact sentence."""
    triple = fact_triple(source_name=source_name, relation=relation, target_name=target_name)
    return _joined((triple, fact or ""), PART_SEPARATOR)
