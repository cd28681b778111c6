"""Step 5: fold new facts into what is stored: duplicates merge, contradicted facts are invalidated, never deleted.

A duplicate joins the same two entities and says the same (same relation, or fact texts that mean
the same): the stored fact gains the episode. A contradiction ends a stored fact: its invalid_at
becomes the new fact's valid_at and expired_at the time we learned it, so history stays queryable.

Resolution reads the stored facts before the write, so other writers may change them meanwhile. What it
decided holds as long as the same questions get the same answers: the reads are kept (`FactReads`) and
asked again inside the write's transaction (facts_read_again), and a sighting of a known fact is kept as
a `Sighting`, folded into the fact as it is stored at that moment rather than written over it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace

import neo4j
import numpy as np

from memoria.embeddings import configured_model_id
from memoria.graph import driver, kinds
from memoria.graph.rules import MAX_TAGS, MAX_WEIGHT, MIN_WEIGHT, derived_edge_id
from memoria.graph.schema import vector_model_of, vector_model_parameters
from memoria.ingest.extract_facts import CO_OCCURRENCE, NEGATED_PREFIX

# Fact texts this close in meaning (the vector index's [0, 1] scale) between the same two entities are one fact.
DUPLICATE_FACT_SCORE = 0.95
# Functional relations: a subject has one object at a time, so a new object ends the old fact.
FUNCTIONAL_FAMILIES: dict[str, frozenset[str]] = {
    "residence": frozenset({"live_in", "live_at", "reside_in", "move_to", "relocate_to", "base_in"}),
    "employment": frozenset({"work_at", "work_for", "employ_at", "employ_by"}),
    "spouse": frozenset({"married_to", "marry", "wed"}),
}
# Relations that end a functional fact with the same object ("left Globex" ends "works at Globex").
ENDING_RELATIONS: dict[str, tuple[str, ...]] = {
    "leave": ("residence", "employment"),
    "quit": ("employment",),
    "resign_from": ("employment",),
    "move_from": ("residence",),
    "divorce": ("spouse",),
}

FACT_COLUMNS = """r.id AS id, a.id AS source, b.id AS target, r.relation AS relation,
       r.relation_category AS category, coalesce(r.fact, '') AS fact, r.weight AS weight,
       coalesce(r.tags, []) AS tags, coalesce(r.episodes, []) AS episodes, r.valid_at AS valid_at,
       r.invalid_at AS invalid_at, r.expired_at AS expired_at"""
# Current facts between given pairs, with their vectors (to tell duplicates by meaning).
FACTS_BETWEEN = f"""
UNWIND $pairs AS pair
MATCH (a:{kinds.MEMORY_LABEL} {{group_id: $group, id: pair.source}})-[r:{kinds.RELATES}]->
      (b:{kinds.MEMORY_LABEL} {{group_id: $group, id: pair.target}})
WHERE r.group_id = $group AND r.invalid_at IS NULL
RETURN {FACT_COLUMNS}, CASE WHEN {vector_model_of("r")} = $model THEN r.fact_embedding END AS vector
"""
# Current facts of given subjects under given relations (to find what a new fact contradicts).
FACTS_OF_SUBJECTS = f"""
UNWIND $subjects AS subject
MATCH (a:{kinds.MEMORY_LABEL} {{group_id: $group, id: subject.source}})-[r:{kinds.RELATES}]->(b:{kinds.MEMORY_LABEL})
WHERE r.group_id = $group AND r.invalid_at IS NULL AND r.relation IN subject.relations
RETURN {FACT_COLUMNS}, null AS vector
"""


@dataclass(frozen=True)
class Sighting:
    """One more episode saying a known fact: what merging it adds (sightings_fold)."""

    episode: str
    tags: tuple[str, ...]
    weight: float


# What a decision about a stored fact rests on: its id, relation, text and start.
FactSignature = tuple[str, str, str, str | None]


@dataclass(frozen=True)
class FactReads:
    """The questions fact resolution asked of the stored facts, and the current facts they answered."""

    pairs: tuple[tuple[str, str], ...] = ()  # (source, target): the current facts between them
    subjects: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (source, relations): its current facts under those
    found: frozenset[FactSignature] = frozenset()
    # The stored facts a decision was drawn from: merged into, ended, or ending a new fact (facts_resolve).
    relied_on: frozenset[str] = frozenset()

    @property
    def entities(self) -> set[str]:
        """The stored entities whose facts were read: a writer claims them before asking again."""
        return {end for pair in self.pairs for end in pair} | {subject for subject, _ in self.subjects}


@dataclass(frozen=True)
class FactState:
    """A fact as stored, or as it will be stored once the batch is written."""

    id: str
    source: str
    target: str
    relation: str
    category: str | None
    fact: str
    weight: float
    tags: tuple[str, ...] = ()
    episodes: tuple[str, ...] = ()
    valid_at: str | None = None
    invalid_at: str | None = None
    expired_at: str | None = None
    vector: list[float] | None = field(default=None, compare=False, repr=False)
    is_new: bool = False
    # A stored fact seen again by this batch: each sighting, in order, to fold into the fact as stored when written.
    sightings: tuple[Sighting, ...] = field(default=(), compare=False)

    @property
    def negated(self) -> bool:
        return self.relation.startswith(NEGATED_PREFIX)

    @property
    def base_relation(self) -> str:
        return self.relation.removeprefix(NEGATED_PREFIX)


@dataclass
class FactWorkingSet:
    """The facts a batch has read or made so far, by id; later episodes of the batch see earlier ones' facts."""

    by_id: dict[str, FactState] = field(default_factory=dict)
    changed: set[str] = field(default_factory=set)
    reads: FactReads = field(default_factory=FactReads)  # what was read of the stored facts to start with

    def put(self, fact: FactState, *, changed: bool = True) -> None:
        self.by_id[fact.id] = fact
        if changed:
            self.changed.add(fact.id)

    def current(self) -> list[FactState]:
        return [fact for fact in self.by_id.values() if fact.invalid_at is None]

    def copy(self) -> FactWorkingSet:
        return FactWorkingSet(dict(self.by_id), set(self.changed), self.reads)


@dataclass(frozen=True)
class NewFact:
    """An extracted fact with its ends resolved to entity ids, and its text's vector."""

    source: str
    target: str
    relation: str  # as stored: negated relations carry the not_ prefix
    category: str | None
    fact: str
    valid_at: str
    weight: float
    tags: tuple[str, ...]
    vector: list[float] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class ResolveFactsInput:
    group: str
    episode_id: str
    facts: tuple[NewFact, ...]
    known: FactWorkingSet
    now: str  # when we learned it: the expired_at of what it invalidates


@dataclass(frozen=True)
class FactResolution:
    created: tuple[str, ...]
    merged: tuple[str, ...]
    invalidated: tuple[str, ...]
    facts: FactWorkingSet


def fact_id(group: str, source: str, relation: str, target: str, episode: str) -> str:
    """A new fact's id: stable for a re-run of the same episode, distinct from an older fact saying the same."""
    return derived_edge_id(group, source, f"{relation}\x1f{episode}", target)


def family_of(relation: str) -> str | None:
    base = relation.removeprefix(NEGATED_PREFIX)
    return next((name for name, members in FUNCTIONAL_FAMILIES.items() if base in members), None)


def contradiction_relations(relation: str) -> list[str]:
    """The stored relations a new fact with this relation may contradict (what FACTS_OF_SUBJECTS asks for)."""
    base = relation.removeprefix(NEGATED_PREFIX)
    wanted = {base, NEGATED_PREFIX + base}
    family = family_of(base)
    if family:
        wanted |= FUNCTIONAL_FAMILIES[family]
    for ended in ENDING_RELATIONS.get(base, ()):
        wanted |= FUNCTIONAL_FAMILIES[ended]
    return sorted(wanted)


def _state(row: dict) -> FactState:
    return FactState(
        id=row["id"],
        source=row["source"],
        target=row["target"],
        relation=row["relation"],
        category=row["category"],
        fact=row["fact"],
        weight=float(row["weight"] if row["weight"] is not None else MIN_WEIGHT),
        tags=tuple(row["tags"]),
        episodes=tuple(row["episodes"]),
        valid_at=row["valid_at"],
        invalid_at=row["invalid_at"],
        expired_at=row["expired_at"],
        vector=row["vector"],
    )


def _signature(row: dict) -> FactSignature:
    return (row["id"], row["relation"], row["fact"], row["valid_at"])


def _facts_read(reads: FactReads, *, group: str, model: str, runner: neo4j.ManagedTransaction | None) -> list[dict]:
    """The current facts answering `reads`' questions, with the vectors of `model` ('' for none)."""
    rows: list[dict] = []
    if reads.pairs:
        pairs = [{"source": source, "target": target} for source, target in reads.pairs]
        rows += driver.rows(runner, FACTS_BETWEEN, group=group, pairs=pairs, **vector_model_parameters(model))
    if reads.subjects:
        subjects = [{"source": source, "relations": list(relations)} for source, relations in reads.subjects]
        rows += driver.rows(runner, FACTS_OF_SUBJECTS, group=group, subjects=subjects)
    return rows


def facts_fetch(*, group: str, facts: Sequence[NewFact], new_entities: Collection[str] = ()) -> FactWorkingSet:
    """The stored current facts that new facts may duplicate or contradict: two reads for a whole batch.

    Entities not stored yet (`new_entities`) have no stored facts, so they are not asked about.
    """
    stored = [fact for fact in facts if fact.source not in new_entities and fact.target not in new_entities]
    pairs = {(fact.source, fact.target) for fact in stored}
    pairs |= {(fact.target, fact.source) for fact in stored if fact.relation == CO_OCCURRENCE}
    subjects: dict[str, set[str]] = {}
    for fact in facts:
        if fact.source not in new_entities:
            subjects.setdefault(fact.source, set()).update(contradiction_relations(fact.relation))
    questions = FactReads(
        pairs=tuple(sorted(pairs)),
        subjects=tuple((source, tuple(sorted(relations))) for source, relations in sorted(subjects.items())),
    )
    rows = _facts_read(questions, group=group, model=configured_model_id(), runner=None)
    found = FactWorkingSet(reads=replace(questions, found=frozenset(_signature(row) for row in rows)))
    for row in rows:
        if row["id"] not in found.by_id:
            found.put(_state(row), changed=False)
    return found


def facts_read_again(tx: neo4j.ManagedTransaction, *, group: str, reads: FactReads) -> bool:
    """Inside a write: whether the batch's decisions still hold for the current facts the same questions get now.

    They hold unless a current fact appeared (or changed id, relation, text or start: the same as one going and
    one appearing), which the batch might duplicate or contradict, or a fact a decision was drawn from went. A
    fact that was read and not drawn from may go: the batch neither merged into it nor ended it, and its going
    makes no other fact the duplicate or the contradiction of a new one. So a curator ending an unrelated fact
    between the same entities does not send the batch back to plan again. Weights, tags and episodes may have
    changed anywhere: sightings fold into them as stored."""
    if not reads.pairs and not reads.subjects:
        return True
    now = frozenset(_signature(row) for row in _facts_read(reads, group=group, model="", runner=tx))
    gone = {signature[0] for signature in reads.found - now}
    return now <= reads.found and not gone & reads.relied_on


def noisy_or(first: float, second: float) -> float:
    """Two independent sightings of a fact make it surer than either; bounded to the weight range."""
    return round(min(MAX_WEIGHT, max(MIN_WEIGHT, 1.0 - (1.0 - first) * (1.0 - second))), 3)


def sightings_fold(
    kept: tuple[Sequence[str], Sequence[str], float], again: tuple[Sequence[str], Sequence[str], float]
) -> tuple[tuple[str, ...], tuple[str, ...], float]:
    """A fact seen again, as (episodes, tags, weight): each episode and tag once (tags up to MAX_TAGS), the
    weight by noisy-or. Ingestion folds a repeated fact by it and curation a merged duplicate, so both agree."""
    episodes = tuple(dict.fromkeys((*kept[0], *again[0])))
    tags = tuple(dict.fromkeys((*kept[1], *again[1])))[:MAX_TAGS]
    return episodes, tags, noisy_or(kept[2], again[2])


def _cosine_score(left: Sequence[float] | None, right: Sequence[float] | None) -> float:
    if left is None or right is None:
        return 0.0
    return (1.0 + float(np.dot(np.asarray(left, dtype=np.float32), np.asarray(right, dtype=np.float32)))) / 2.0


def duplicate_of(fact: NewFact, current: Sequence[FactState]) -> FactState | None:
    """The current fact between the same entities that says the same thing, if any."""
    symmetric = fact.relation == CO_OCCURRENCE
    between = [
        old
        for old in current
        if (old.source, old.target) == (fact.source, fact.target)
        or (symmetric and (old.target, old.source) == (fact.source, fact.target))
    ]
    same = [old for old in between if old.relation == fact.relation]
    if same:
        return same[0]
    negated = fact.relation.startswith(NEGATED_PREFIX)
    close = [
        (score, old)
        for old in between
        if old.negated == negated and (score := _cosine_score(old.vector, fact.vector)) >= DUPLICATE_FACT_SCORE
    ]
    return max(close, key=lambda item: item[0])[1] if close else None


def contradicted_by(fact: NewFact, current: Sequence[FactState]) -> list[FactState]:
    """Current facts the new one contradicts: its negation, or another object of a functional relation."""
    base = fact.relation.removeprefix(NEGATED_PREFIX)
    negated = fact.relation.startswith(NEGATED_PREFIX)
    family = family_of(base)
    ended = ENDING_RELATIONS.get(base, ())
    found = []
    for old in current:
        if old.source != fact.source:
            continue
        same_object = old.target == fact.target
        if (
            (same_object and old.base_relation == base and old.negated != negated)
            or (not negated and not old.negated and family and family_of(old.relation) == family and not same_object)
            or (same_object and not old.negated and family_of(old.relation) in ended)
        ):
            found.append(old)
    return found


def facts_resolve(*, request: ResolveFactsInput) -> FactResolution:
    """Apply one episode's facts to the working set, in order; returns what was created, merged and invalidated."""
    known = request.known.copy()
    created: list[str] = []
    merged: list[str] = []
    invalidated: list[str] = []
    relied_on: set[str] = set()  # the stored facts (not this batch's own) a decision was drawn from
    for fact in request.facts:
        current = known.current()
        duplicate = duplicate_of(fact, current)
        if duplicate is not None:
            if not duplicate.is_new:
                relied_on.add(duplicate.id)
            episodes, tags, weight = sightings_fold(
                (duplicate.episodes, duplicate.tags, duplicate.weight), ((request.episode_id,), fact.tags, fact.weight)
            )
            seen = (*duplicate.sightings, Sighting(request.episode_id, fact.tags, fact.weight))
            known.put(replace(duplicate, episodes=episodes, tags=tags, weight=weight, sightings=seen))
            merged.append(duplicate.id)
            continue
        new = FactState(
            id=fact_id(request.group, fact.source, fact.relation, fact.target, request.episode_id),
            source=fact.source,
            target=fact.target,
            relation=fact.relation,
            category=fact.category,
            fact=fact.fact,
            weight=fact.weight,
            tags=fact.tags,
            episodes=(request.episode_id,),
            valid_at=fact.valid_at,
            vector=fact.vector,
            is_new=True,
        )
        for old in contradicted_by(fact, current):
            if not old.is_new:
                relied_on.add(old.id)
            if old.valid_at is not None and old.valid_at > fact.valid_at:
                # We learned of something older than what is stored: the new fact is the one already over.
                new = replace(new, invalid_at=old.valid_at, expired_at=request.now)
                continue
            known.put(replace(old, invalid_at=fact.valid_at, expired_at=request.now))
            invalidated.append(old.id)
        known.put(new)
        created.append(new.id)
    known.reads = replace(known.reads, relied_on=known.reads.relied_on | relied_on)
    return FactResolution(tuple(created), tuple(dict.fromkeys(merged)), tuple(dict.fromkeys(invalidated)), known)
