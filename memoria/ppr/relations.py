"""Relation influence factors (β) of relation-aware PPR (seed 003, MARA-RAG): one per relation category, per query.

Two families, each normalised to sum 1: entity–entity facts (the five relation
categories) and entity–passage links (how central an entity is to an episode
that mentions it). An edge's weight is multiplied by its category's β; an edge
of no known category takes its family's average, and SYNONYMY weighs as
ATTRIBUTION (memoria.projection.projection reads it so).

Where β comes from: the caller, the LLM manager (memoria.ppr.llm_steps) when one is configured, or the
offline manager — the query's cosine to
a description of each entity–entity category plus a bonus for each word that
names a category outright ("when", "where", "why", "who", "kind"), sharpened
by a softmax over a floor, and the seed's fixed prior for the entity–passage roles (our episodes' links carry no
role unless a writer stored one, so a per-query choice among them would change
nothing).
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Protocol

import numpy as np
from pydantic import AfterValidator, Field, WithJsonSchema

from memoria.graph import kinds
from memoria.llm.modes import StepMode
from memoria.projection.projection import MENTION_ROLES, MENTIONS_LINK, NO_CATEGORY, Projection
from memoria.requests.vocabulary import RequestModel, problems_raise

ENTITY_ENTITY = "entity_entity"
ENTITY_PASSAGE = "entity_passage"
FAMILIES: dict[str, tuple[str, ...]] = {ENTITY_ENTITY: kinds.RELATION_CATEGORIES, ENTITY_PASSAGE: MENTION_ROLES}

# What each entity–entity category is about, in the words a question about it would use.
CATEGORY_DESCRIPTIONS = {
    "HIERARCHICAL": "what type or kind of thing is it, which group, class or organisation is it part of or a member of",
    "TEMPORAL": "when did it happen, in which year or on which date, how long did it last, before or after what",
    "SPATIAL": "where is it, in which place, city or country is it located, how near is it",
    "CAUSALITY": "why did it happen, what caused it, what did it lead to, what was the effect",
    "ATTRIBUTION": "who wrote, made or owns it, what is it called, which properties or features does it have",
}
# Words that name a category outright; each one found in the query adds CUE_BONUS to that category's cosine.
CATEGORY_CUES = {
    "HIERARCHICAL": "kind type types category class member part belong belongs genre species subsidiary division",
    "TEMPORAL": "when year years date day month century decade period before after since until during",
    "SPATIAL": "where located location country city town place region state near headquartered headquarters",
    "CAUSALITY": "why cause caused causes because reason led lead result resulted effect due",
    "ATTRIBUTION": "who whose named name called owner owns owned wrote written author created founder made composed",
}
CUE_BONUS = 0.15
WORD = re.compile(r"[a-z]+")
# The seed's example answer for the entity–passage family.
PASSAGE_PRIOR = {"PRIMARY": 0.6, "SECONDARY": 0.3, "PERIPHERAL": 0.1}
# Softmax temperature over cosines (MiniLM's cosines between a question and these descriptions span about 0.3),
# and the share spread evenly whatever the query, so a wrong guess dims a category's facts but never removes them.
TEMPERATURE = 0.1
FLOOR = 0.25

CALLER = "caller"

Embed = Callable[[list[str]], list[list[float]]]


@dataclass(frozen=True)
class RelationBetas:
    entity_entity: dict[str, float]  # each family sums to 1
    entity_passage: dict[str, float]
    source: str  # caller | offline | llm

    def as_dict(self) -> dict[str, Any]:
        return {ENTITY_ENTITY: self.entity_entity, ENTITY_PASSAGE: self.entity_passage, "source": self.source}

    def multipliers(self, projection: Projection, chosen: np.ndarray | slice) -> np.ndarray:
        """β of each chosen edge: its category's, or its family's average when it has none (or another family's)."""
        table = np.array(
            [self.entity_entity[c] for c in kinds.RELATION_CATEGORIES] + [self.entity_passage[r] for r in MENTION_ROLES]
        )
        categories, links = projection.categories[chosen], projection.links[chosen]
        mention = links == MENTIONS_LINK
        facts = len(kinds.RELATION_CATEGORIES)
        in_family = np.where(mention, categories >= facts, categories < facts)
        known = (categories != NO_CATEGORY) & in_family
        average = np.where(mention, 1 / len(MENTION_ROLES), 1 / len(kinds.RELATION_CATEGORIES))
        return np.where(known, table[np.where(known, categories, 0)], average)


def _normalised(values: Mapping[str, float], names: tuple[str, ...]) -> dict[str, float]:
    total = sum(values[name] for name in names)
    return {name: values[name] / total for name in names}


def _family_checked(family: str) -> Any:
    """A family's given β: known categories (SYNONYMY read as ATTRIBUTION), finite numbers ≥ 0, one above 0."""
    names = FAMILIES[family]
    aliases = {"SYNONYMY": "ATTRIBUTION"} if family == ENTITY_ENTITY else {}

    def check(given: dict[str, Any]) -> dict[str, float]:
        problems: list[str] = []
        values: dict[str, float] = {}
        for name, value in given.items():
            category = aliases.get(name, name)
            if category not in names:
                problems.append(f"{family}.{name}: not one of {', '.join(names)}")
            elif isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
                problems.append(f"{family}.{name}: must be a finite number ≥ 0")
            elif category in values:
                problems.append(f"{family}.{name}: {category} is given twice")
            else:
                values[category] = float(value)
        if not problems and values and not any(values.values()):
            problems.append(f"{family}: at least one β must be above 0")
        problems_raise(family, problems, where=family)
        return values

    schema = {"type": "object", "propertyNames": {"enum": [*names, *aliases]}, "additionalProperties": {"minimum": 0}}
    return Annotated[
        dict[str, Any],
        AfterValidator(check),
        WithJsonSchema({**schema, "description": f"{family.replace('_', '–')} β by category, each ≥ 0"}),
    ]


class BetasInput(RequestModel):
    """{"entity_entity": {category: β ≥ 0}, "entity_passage": {role: β ≥ 0}}: a family or a category left out
    takes equal shares (a category: the average of those given); each family is normalised to sum 1."""

    entity_entity: _family_checked(ENTITY_ENTITY) = Field(default_factory=dict)  # type: ignore[valid-type]
    entity_passage: _family_checked(ENTITY_PASSAGE) = Field(default_factory=dict)  # type: ignore[valid-type]

    def betas(self, source: str = CALLER) -> RelationBetas:
        chosen = {}
        for family, names in FAMILIES.items():
            values: dict[str, float] = getattr(self, family)
            fill = sum(values.values()) / len(values) if values else 1.0
            chosen[family] = _normalised({name: values.get(name, fill) for name in names}, names)
        return RelationBetas(chosen[ENTITY_ENTITY], chosen[ENTITY_PASSAGE], source)


_description_vectors: np.ndarray | None = None
_descriptions_lock = threading.Lock()


def _descriptions(embed: Embed) -> np.ndarray:
    global _description_vectors
    with _descriptions_lock:
        if _description_vectors is None:
            vectors = embed([CATEGORY_DESCRIPTIONS[c] for c in kinds.RELATION_CATEGORIES])
            _description_vectors = np.asarray(vectors, dtype=np.float64)
        return _description_vectors


def betas_offline(*, query: str, embed: Embed | None = None) -> RelationBetas:
    """β for a query without an LLM: softmax over the query's cosine to each category's description."""
    if embed is None:
        from memoria.embeddings import embedder

        embed = embedder().embed
    descriptions = _descriptions(embed)
    vector = np.asarray(embed([query])[0], dtype=np.float64)
    norms = np.linalg.norm(descriptions, axis=1) * np.linalg.norm(vector)
    cosines = descriptions @ vector / np.where(norms > 0, norms, 1.0)
    words = set(WORD.findall(query.lower()))
    cosines += CUE_BONUS * np.array([len(words & set(CATEGORY_CUES[c].split())) for c in kinds.RELATION_CATEGORIES])
    shares = np.exp((cosines - cosines.max()) / TEMPERATURE)
    shares = (1 - FLOOR) * shares / shares.sum() + FLOOR / len(shares)
    entity_entity = {name: float(share) for name, share in zip(kinds.RELATION_CATEGORIES, shares, strict=True)}
    return RelationBetas(entity_entity, dict(PASSAGE_PRIOR), StepMode.OFFLINE)


class BetaManager(Protocol):
    """Chooses β for a query (MARA-RAG's manager agent); `source` says who (offline | llm)."""

    source: str

    def choose_betas(self, query: str) -> RelationBetas: ...


class OfflineBetaManager:
    source: ClassVar[str] = StepMode.OFFLINE

    def choose_betas(self, query: str) -> RelationBetas:
        return betas_offline(query=query)
