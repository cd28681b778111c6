"""Query-side entity linking, offline: the question's word spans matched to stored entity names and aliases.

HippoRAG links a question to the graph through its named entities (an LLM finds them, then each is matched to the
nearest phrase node). Without a model in the loop, the same job is done by reading every span of up to
`MAX_SPAN_WORDS` words of the question under the name key that ingestion already uses to tell two names apart
(memoria.ingest.text.name_key: case, accents, articles, possessives, plurals), and looking it up among the group's
entity names and aliases. A span inside a longer matched span is dropped ("Green" inside "Green Day"), and a span
made only of function words never links. In a query that capitalises some word past its first, only spans
holding such a word link: that is how a question marks a name ("the performer of Green"), and it keeps the
common nouns that open extraction also stores as entities ("country", "performer") from seeding the walk. A
query in lower case links every span.

Each linked entity seeds with its inverse document frequency over the group's episodes, ln((N + 1) / (df + 1)):
an entity that many passages mention says little about which passage answers (HippoRAG's node specificity makes
the same point with 1 / df). The lexicon is built from the group's projection and cached per projection version,
so a write that adds or renames entities is seen on the next query.

A caller may also drop the entities that too many episodes mention (`max_share`): in a conversation the speaker a
question names is in half the turns, and a walk from her ranks her turns, not the answer (docs/evaluation.md,
"Gated graph fusion").
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections import OrderedDict, defaultdict
from dataclasses import dataclass

import numpy as np

from memoria.graph import driver, kinds
from memoria.ingest.text import STOPWORDS, name_key
from memoria.projection.projection import Projection, mention_counts

MAX_SPAN_WORDS = 12  # longer names are rarely typed out whole in a question
CACHED_LEXICONS = 8
WORD = re.compile(r"[\w'’-]+")

ALIASES = f"""
MATCH (n:{kinds.ENTITY} {{group_id: $group}})
WHERE n.attributes CONTAINS '"aliases"'
RETURN n.id AS id, n.attributes AS attributes
"""


@dataclass(frozen=True)
class LinkedEntity:
    id: str
    name: str
    span: str  # the question's words that named it
    weight: float  # its IDF over the group's episodes


@dataclass(frozen=True)
class Lexicon:
    """Name keys (names and aliases) → entity positions of one projection, and each position's IDF."""

    group: str
    version: int
    keys: dict[str, tuple[int, ...]]
    idf: np.ndarray  # float per projection position (entities only are looked up)
    ids: tuple[str, ...]
    names: tuple[str, ...]
    longest: int  # words in the longest key
    episodes: int = 0  # the group's episodes, N of the IDF

    def idf_floor(self, max_share: float) -> float:
        """The least IDF of an entity that at most `max_share` of the episodes mention: df ≤ share·N."""
        return math.log((self.episodes + 1) / (max_share * self.episodes + 1))

    def link(self, query: str, *, max_share: float | None = None) -> tuple[LinkedEntity, ...]:
        """The entities the query names, heaviest first (ties by id); an entity named twice counts once. With
        `max_share`, those that more than that share of the group's episodes mention are left out."""
        words = WORD.findall(query)
        named = [index > 0 and word[:1].isupper() for index, word in enumerate(words)]
        cased = any(named)  # a query written with capitals names its entities with them
        spans: list[tuple[int, int, str]] = []
        for start in range(len(words)):
            for end in range(min(len(words), start + self.longest), start, -1):
                if all(word.lower() in STOPWORDS for word in words[start:end]):
                    continue
                if cased and not any(named[start:end]):
                    continue
                key = name_key(" ".join(words[start:end]))
                if key and key in self.keys:
                    spans.append((start, end, key))
        kept = [
            (start, end, key)
            for start, end, key in spans
            if not any(
                (s <= start and end <= e) and (e - s) > (end - start) for s, e, _ in spans
            )  # not inside a longer match
        ]
        found: dict[int, str] = {}
        for start, end, key in kept:
            for position in self.keys[key]:
                found.setdefault(position, " ".join(words[start:end]))
        floor = 0.0 if max_share is None else self.idf_floor(max_share)
        linked = [
            LinkedEntity(self.ids[position], self.names[position], span, float(self.idf[position]))
            for position, span in found.items()
            if self.idf[position] > 0 and self.idf[position] >= floor
        ]
        return tuple(sorted(linked, key=lambda entity: (-entity.weight, entity.id)))


def _aliases(group: str) -> dict[str, list[str]]:
    """Each entity's aliases, as curation and ingestion keep them in its `attributes` JSON."""
    found: dict[str, list[str]] = {}
    for row in driver.read(ALIASES, group=group):
        try:
            aliases = json.loads(row["attributes"] or "{}").get("aliases", [])
        except (ValueError, AttributeError):
            continue
        found[row["id"]] = [alias for alias in aliases if isinstance(alias, str) and alias.strip()]
    return found


def lexicon_build(projection: Projection, aliases: dict[str, list[str]]) -> Lexicon:
    """The lexicon of one projection and its entities' aliases (entity id → alias names)."""
    entity = kinds.NODE_KINDS.index(kinds.ENTITY)
    episodes = int(np.count_nonzero(projection.kinds == kinds.NODE_KINDS.index(kinds.EPISODE)))
    counts = mention_counts(projection)
    idf = np.log((episodes + 1) / (counts + 1.0))
    keys: dict[str, list[int]] = defaultdict(list)
    for position in np.flatnonzero(projection.kinds == entity).tolist():
        node_id = projection.ids[position]
        for name in (projection.names[position], *aliases.get(node_id, ())):
            key = name_key(name)
            if key and position not in keys[key]:
                keys[key].append(position)
    longest = max((len(key.split()) for key in keys), default=0)
    return Lexicon(
        group=projection.group,
        version=projection.version,
        keys={key: tuple(positions) for key, positions in keys.items()},
        idf=np.maximum(idf, 0.0),
        ids=projection.ids,
        names=projection.names,
        longest=min(longest, MAX_SPAN_WORDS),
        episodes=episodes,
    )


_lexicons: OrderedDict[tuple[str, int], Lexicon] = OrderedDict()
_lexicons_lock = threading.Lock()


def group_lexicon(projection: Projection) -> Lexicon:
    """The projection's lexicon, built once per group version (the aliases are read from the server then)."""
    key = (projection.group, projection.version)
    with _lexicons_lock:
        if key in _lexicons:
            _lexicons.move_to_end(key)
            return _lexicons[key]
    built = lexicon_build(projection, _aliases(projection.group))
    with _lexicons_lock:
        _lexicons[key] = built
        while len(_lexicons) > CACHED_LEXICONS:
            _lexicons.popitem(last=False)
    return built
