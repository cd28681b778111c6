"""add_episode: the steps of ingestion run over one episode or a batch, and written in one transaction.

Graphiti's phases 1–7 (seed 004): context, entity extraction, entity resolution, fact extraction,
fact resolution, summaries and embeddings, persistence; then phase 8, the incremental community update,
once per committed batch for all the entities the batch touched (memoria/ingest/communities.py).
"""

from __future__ import annotations

import logging
import random
import time
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Protocol

from neo4j import exceptions as neo4j_errors

from memoria.accounts.roles import check_group_name
from memoria.embeddings import configured_model_id
from memoria.errors import InvalidInput, LlmUnavailable
from memoria.graph import driver, kinds
from memoria.graph.dialect import graph_dialect
from memoria.graph.schema import VECTOR_MODEL, VECTOR_TEXT
from memoria.graph.searchable import SEARCHABLE_TEXT_VERSION, fact_text, node_text
from memoria.ingest.communities import CommunityConflict, communities_exist, communities_update
from memoria.ingest.context import CONTEXT_EPISODES, ContextRequest, PriorEpisode, context_fetch
from memoria.ingest.episodes import Episode, EpisodeInput, episode_prepare
from memoria.ingest.extract_entities import (
    EntityExtraction,
    EntityExtractionInput,
    EntityExtractor,
    ExtractedEntity,
    OfflineEntityExtractor,
)
from memoria.ingest.extract_facts import FactExtractionInput, FactExtractor, OfflineFactExtractor
from memoria.ingest.llm_extractors import LlmEntityExtractor, LlmFactExtractor
from memoria.ingest.llm_resolver import LlmEntityResolver
from memoria.ingest.persist import (
    STORED_IDS,
    EntityRow,
    EntityUpdate,
    EpisodeRow,
    FactRow,
    FactUpdate,
    PlanConflict,
    WritePlan,
    attributes_json,
    plan_persist,
)
from memoria.ingest.preceding import PRECEDING_MESSAGES, PRECEDING_PROPERTY, preceding_text
from memoria.ingest.resolve_entities import (
    EntityResolution,
    EntityResolver,
    EntityState,
    OfflineEntityResolver,
    ResolveEntitiesInput,
    entities_resolve,
)
from memoria.ingest.resolve_facts import (
    FactState,
    FactWorkingSet,
    NewFact,
    ResolveFactsInput,
    facts_fetch,
    facts_resolve,
)
from memoria.ingest.summaries import sentences_about, summary_fold
from memoria.ingest.temporal import format_timestamp
from memoria.ingest.turns import EXCLUSIVE_AFTER, writer_turn
from memoria.llm.client import ChatClient, chat_client, chat_client_or_none
from memoria.llm.modes import STEP_MODES, StepMode

logger = logging.getLogger(__name__)

DEFAULT_BATCH_SIZE = 32
# A batch is planned again when a concurrent writer changed what its plan rests on (an episode or name stored
# first, the facts between its entities changed, an entity merged away); rivals wait a random while before, and
# from the EXCLUSIVE_AFTER-th plan on the batch has the group's turn (memoria.ingest.turns).
MAX_ATTEMPTS = 5
REPLAN_PAUSE_SECONDS = 0.1
NAME_CACHE_SIZE = 20_000


class TextEmbedder(Protocol):
    def embed(self, texts: list[str]) -> list[list[float]]: ...


@dataclass(frozen=True)
class Extractors:
    """The pluggable steps: offline by default, an LLM's where one is configured (extractors_for_settings)."""

    entities: EntityExtractor = field(default_factory=OfflineEntityExtractor)
    facts: FactExtractor = field(default_factory=OfflineFactExtractor)
    resolver: EntityResolver = field(default_factory=OfflineEntityResolver)
    # The model behind the LLM steps, which phase 8 also asks for community summaries; None: extractive ones.
    llm: ChatClient | None = None

    @property
    def kind(self) -> str:
        return StepMode.LLM if self.llm is not None else StepMode.OFFLINE


def extractors_for_settings(*, choice: str = StepMode.AUTO) -> Extractors:
    """The steps every entry point ingests with: the LLM's when MEMORIA_LLM_URL and MEMORIA_LLM_MODEL are set.

    `offline` ignores a configured LLM; `llm` insists on one (LlmUnavailable when none is configured), and so
    does `auto` when the configuration is present but broken (a bad URL): a typo must not silently go offline.
    """
    if choice not in STEP_MODES:
        raise InvalidInput(f"extractor: {choice!r} is not one of {', '.join(STEP_MODES)}")
    if choice == StepMode.OFFLINE:
        return Extractors()
    client = chat_client() if choice == StepMode.LLM else chat_client_or_none()
    if client is None:
        return Extractors()
    return Extractors(
        entities=LlmEntityExtractor(client),
        facts=LlmFactExtractor(client),
        resolver=LlmEntityResolver(client),
        llm=client,
    )


@dataclass(frozen=True)
class EpisodeResult:
    episode_id: str
    name: str
    added: bool  # False: the episode was already stored (or repeated in the input), and nothing changed
    entities: tuple[str, ...] = ()  # every entity the episode mentions
    entities_created: tuple[str, ...] = ()
    facts_created: tuple[str, ...] = ()
    facts_merged: tuple[str, ...] = ()
    facts_invalidated: tuple[str, ...] = ()
    # Entities whose facts or summary this episode changed: phase 8 brings their communities up to date.
    touched_entities: tuple[str, ...] = ()
    communities: tuple[str, ...] = ()  # the communities phase 8 refreshed with this episode's touched entities
    communities_error: str | None = None  # why phase 8 failed after the batch was stored (the episode stays)


class _Vectors:
    """Embeds in one call per batch; names repeat across a conversation, so their vectors are remembered.

    The model is loaded on the first text, so a run with nothing new to add stays quick.
    """

    def __init__(self, load: Callable[[], TextEmbedder], names: OrderedDict[tuple[str, str], list[float]]) -> None:
        self.load = load
        self.names = names  # keyed by (model id, name): a vector of another model is never reused
        self._loaded: TextEmbedder | None = None
        # The texts of the batch being planned: a batch planned again (a concurrent writer changed what it rested
        # on) embeds the same fact texts and contents, so they are kept until the batch is written.
        self._batch: dict[str, list[float]] = {}

    @property
    def model_id(self) -> str:
        """The id recorded beside the vectors this run stores: the loaded model's (the configured one's when none
        was loaded yet, or when an embedder given by a caller has no id)."""
        return getattr(self._loaded, "model_id", None) or configured_model_id()

    def _embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        self._loaded = self._loaded or self.load()
        return self._loaded.embed(texts)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        missing = [text for text in dict.fromkeys(texts) if text not in self._batch]
        self._batch.update(zip(missing, self._embed(missing), strict=True))
        return [self._batch[item] for item in texts]

    def batch_done(self) -> None:
        """The batch is stored (or given up on): its texts will not be asked for again."""
        self._batch.clear()

    def embed_names(self, names: list[str]) -> list[list[float]]:
        model = self.model_id
        missing = [name for name in dict.fromkeys(names) if (model, name) not in self.names]
        for name, vector in zip(missing, self._embed(missing), strict=True):
            self.names[model, name] = vector
        found = {name: self.names[model, name] for name in dict.fromkeys(names)}
        while len(self.names) > NAME_CACHE_SIZE:
            self.names.popitem(last=False)
        return [found[name] for name in names]


_shared_names: OrderedDict[tuple[str, str], list[float]] = OrderedDict()


def _vectors_for(embedder: TextEmbedder | None) -> _Vectors:
    if embedder is None:
        from memoria.embeddings import embedder as shared_embedder

        return _Vectors(shared_embedder, _shared_names)
    return _Vectors(lambda: embedder, OrderedDict())


def _now() -> str:
    return format_timestamp(datetime.now(UTC))


def stored_episodes(*, group: str, ids: Sequence[str]) -> set[str]:
    """Which of these episode ids the group holds already; an id the group holds as an entity is refused."""
    stored: set[str] = set()
    problems: list[str] = []
    for row in driver.read(STORED_IDS, ids=list(ids), group=group) if ids else []:
        if kinds.EPISODE in row["labels"]:
            stored.add(row["id"])
        else:
            problems.append(f"episode id {row['id']!r} already belongs to another kind of node")
    if problems:
        raise InvalidInput(problems)
    return stored


def episode_add(
    *,
    group: str,
    episode: EpisodeInput,
    extractors: Extractors | None = None,
    embedder: TextEmbedder | None = None,
    context_size: int = CONTEXT_EPISODES,
    episode_vectors: bool = True,
    update_communities: bool = True,
) -> EpisodeResult:
    """Add one episode in one transaction; adding it again (same id) changes nothing."""
    return episodes_add(
        group=group,
        episodes=[episode],
        extractors=extractors,
        embedder=embedder,
        context_size=context_size,
        episode_vectors=episode_vectors,
        update_communities=update_communities,
        batch_size=1,
    )[0]


def episodes_add(
    *,
    group: str,
    episodes: Iterable[EpisodeInput],
    extractors: Extractors | None = None,
    embedder: TextEmbedder | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    context_size: int = CONTEXT_EPISODES,
    episode_vectors: bool = True,
    update_communities: bool = True,
    progress: Callable[[list[EpisodeResult]], None] | None = None,
) -> list[EpisodeResult]:
    """Add episodes in order, `batch_size` at a time: one embedding call per kind and one transaction per batch.

    A batch is all or nothing (an LLM step that fails raises, and its batch writes nothing); an interrupted run
    resumes where it stopped, because stored episodes are skipped. Without `episode_vectors`, episode contents
    are not embedded (Graphiti does not embed them either; they are the longest texts, about half the embedding
    work): `reindex` fills them later. With `update_communities`, each committed batch then refreshes the
    communities of the entities it touched, once each, if the group has communities (a build makes the first).
    `extractors` None means offline: entry points choose by the settings with extractors_for_settings().
    """
    check_group_name(group)
    if batch_size < 1:
        raise ValueError(f"batch_size={batch_size} must be at least 1")
    run = _Run(
        group, extractors or Extractors(), _vectors_for(embedder), context_size, episode_vectors, update_communities
    )
    results: list[EpisodeResult] = []
    seen: set[str] = set()
    pending: list[Episode | EpisodeResult] = []  # in input order; an episode given twice is already its result

    def flush() -> None:
        fresh = [item for item in pending if isinstance(item, Episode)]
        done = iter(_communities_refresh(run, _batch_add(run, fresh)) if fresh else ())
        flushed = [next(done) if isinstance(item, Episode) else item for item in pending]
        results.extend(flushed)
        if progress and flushed:
            progress(flushed)
        pending.clear()

    for item in episodes:
        prepared = episode_prepare(group=group, episode=item)
        if prepared.id in seen:
            pending.append(EpisodeResult(prepared.id, prepared.name, added=False))
            continue
        seen.add(prepared.id)
        pending.append(prepared)
        if sum(isinstance(entry, Episode) for entry in pending) >= batch_size:
            flush()
    flush()
    return results


@dataclass(frozen=True)
class _Run:
    """What every batch of one episodes_add call shares."""

    group: str
    extractors: Extractors
    vectors: _Vectors
    context_size: int
    episode_vectors: bool
    update_communities: bool


def _batch_add(run: _Run, batch: list[Episode]) -> list[EpisodeResult]:
    group = run.group
    for attempt in range(MAX_ATTEMPTS):
        if attempt:
            time.sleep(random.uniform(0, REPLAN_PAUSE_SECONDS * attempt))
        with writer_turn(group, exclusive=attempt >= EXCLUSIVE_AFTER):
            results = _batch_attempt(run, batch, attempt)
        if results is not None:
            run.vectors.batch_done()
            return results
    run.vectors.batch_done()
    raise PlanConflict(
        f"group {group!r} kept changing under this batch for {MAX_ATTEMPTS} plans (other writers stored its"
        " episodes or names, or changed the facts and entities it extends); nothing was written, send it again"
    )


def _batch_attempt(run: _Run, batch: list[Episode], attempt: int) -> list[EpisodeResult] | None:
    """Plan the batch's episodes not stored yet and write them; None when another writer changed what the plan
    rests on meanwhile (nothing written)."""
    stored = stored_episodes(group=run.group, ids=[episode.id for episode in batch])
    fresh = [episode for episode in batch if episode.id not in stored]
    added: dict[str, EpisodeResult] = {}
    if fresh:
        plan, planned = _batch_plan(run, fresh)
        try:
            plan_persist(plan=plan, embed=run.vectors.embed)
        except PlanConflict as conflict:
            logger.info("group %s: batch planned again (attempt %d): %s", run.group, attempt + 1, conflict)
            return None
        except neo4j_errors.Neo4jError as error:
            # Two writers created the same new name at once: the loser plans again and finds it stored;
            # past the last attempt it is the PlanConflict of _batch_add (409, try again), not a server error.
            if not graph_dialect().is_constraint_violation(error):
                raise
            return None
        added = {result.episode_id: result for result in planned}
    return [added.get(episode.id) or EpisodeResult(episode.id, episode.name, added=False) for episode in batch]


def _communities_refresh(run: _Run, results: list[EpisodeResult]) -> list[EpisodeResult]:
    """Phase 8, once for a committed batch: each community of its touched entities refreshed once, race-free.

    The batch is stored already, so a failure here does not undo it: each added episode carries the error,
    and the communities catch up at the next update that touches them or at the next build.
    """
    touched = sorted({entity for result in results if result.added for entity in result.touched_entities})
    if not run.update_communities or not touched or not communities_exist(group=run.group):
        return results
    llm = run.extractors.llm
    try:
        report = communities_update(
            group=run.group, touched_entity_ids=touched, llm=llm, offline=llm is None, embed_names=run.vectors.embed
        )
    except (CommunityConflict, LlmUnavailable) as error:
        logger.warning("group %s: communities not brought up to date after a batch: %s", run.group, error)
        return [replace(result, communities_error=str(error)) if result.added else result for result in results]
    placed = dict(report.memberships)
    return [
        replace(result, communities=tuple(sorted({placed[e] for e in result.touched_entities if e in placed})))
        if result.added
        else result
        for result in results
    ]


@dataclass
class _EpisodeWork:
    episode: Episode
    extraction: EntityExtraction
    facts: list[NewFact] = field(default_factory=list)
    created: tuple[str, ...] = ()
    merged: tuple[str, ...] = ()
    invalidated: tuple[str, ...] = ()
    preceding: str | None = None  # the messages just before a message (memoria.ingest.preceding)


def _batch_plan(run: _Run, batch: list[Episode]) -> tuple[WritePlan, list[EpisodeResult]]:
    group, extractors, vectors = run.group, run.extractors, run.vectors
    now = _now()
    # 1. context
    read = max(run.context_size, PRECEDING_MESSAGES)
    stored_context = context_fetch(
        request=ContextRequest(group, tuple(episode.reference_time for episode in batch), read)
    )
    work: list[_EpisodeWork] = []
    earlier: list[PriorEpisode] = []
    for episode in batch:
        context = stored_context.for_episode(
            reference_time=episode.reference_time, episode_id=episode.id, earlier_in_batch=earlier
        )
        # 2. entities
        request = EntityExtractionInput(
            episode.content, episode.source, episode.reference_time, context[: run.context_size]
        )
        before = preceding_text(source=episode.source, context=context)
        work.append(_EpisodeWork(episode, extractors.entities.extract_entities(request), preceding=before))
        earlier.append(PriorEpisode(episode.id, episode.name, episode.content, episode.source, episode.reference_time))
    # 3. entity resolution, over the batch's distinct names in the order they came
    mentions: dict[str, ExtractedEntity] = {}
    read_in: dict[str, str] = {}
    for item in work:
        for entity in item.extraction.entities:
            mentions.setdefault(entity.key, entity)
            read_in.setdefault(entity.key, item.episode.content)
    resolution = entities_resolve(
        request=ResolveEntitiesInput(group, tuple(mentions.values()), vectors.embed_names, episodes=read_in),
        resolver=extractors.resolver,
    )
    # 4. facts, their ends mapped to resolved ids; one embedding call for every fact text and episode content
    for item in work:
        extracted = extractors.facts.extract_facts(
            FactExtractionInput(item.episode.content, item.episode.reference_time, item.extraction)
        )
        for fact in extracted.facts:
            source, target = resolution.resolved.get(fact.source), resolution.resolved.get(fact.target)
            if source is None or target is None or source == target:
                continue
            item.facts.append(
                NewFact(
                    source,
                    target,
                    fact.stored_relation,
                    fact.category,
                    fact.fact,
                    fact.valid_at,
                    fact.weight,
                    fact.tags,
                )
            )
    names = {entity.id: entity.name for entity in resolution.entities.by_id.values()}
    fact_texts = [
        fact_text(source_name=names.get(f.source), relation=f.relation, target_name=names.get(f.target), fact=f.fact)
        for item in work
        for f in item.facts
    ]
    contents = (
        [node_text(is_episode=True, name=item.episode.name, content=item.episode.content) for item in work]
        if run.episode_vectors
        else []
    )
    embedded = vectors.embed([*fact_texts, *contents])
    fact_vectors = embedded[: len(fact_texts)]
    episode_vectors = embedded[len(fact_texts) :] or [None] * len(work)
    position = 0
    for item in work:
        item.facts = [replace(fact, vector=fact_vectors[position + index]) for index, fact in enumerate(item.facts)]
        position += len(item.facts)
    # 5. fact resolution, episode after episode, against stored facts read once for the batch
    new_entities = {entity.id for entity in resolution.entities.by_id.values() if entity.is_new}
    facts = facts_fetch(group=group, facts=[fact for item in work for fact in item.facts], new_entities=new_entities)
    for item in work:
        resolved = facts_resolve(request=ResolveFactsInput(group, item.episode.id, tuple(item.facts), facts, now))
        facts = resolved.facts
        item.created, item.merged, item.invalidated = resolved.created, resolved.merged, resolved.invalidated
    # 6. summaries, then the vectors of the entities whose searchable text (name and summary) they made or changed
    sentences = _summary_sentences(work, resolution, facts)
    entities = _summarised(resolution, sentences)
    entity_vectors = _entity_vectors(work, resolution, entities, vectors)
    plan = _write_plan(
        group,
        now,
        work,
        episode_vectors,
        resolution,
        _Summaries(entities, entity_vectors, sentences),
        facts,
        model=vectors.model_id,
    )
    return plan, _results(work, resolution, facts)


def _summary_sentences(
    work: list[_EpisodeWork], resolution: EntityResolution, facts: FactWorkingSet
) -> dict[str, list[tuple[str, ...]]]:
    """What the batch says of each entity it mentions: the sentences of each mention, in the batch's order."""
    found: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    for item in work:
        fact_texts: dict[str, list[str]] = {}
        for fact_id in (*item.created, *item.merged):
            fact = facts.by_id[fact_id]
            for end in (fact.source, fact.target):
                fact_texts.setdefault(end, []).append(fact.fact)
        for mention in item.extraction.entities:
            entity_id = resolution.resolved[mention.key]
            found[entity_id].append(
                sentences_about(
                    sentences=item.extraction.sentences, spans=mention.spans, fact_texts=fact_texts.get(entity_id, [])
                )
            )
    return found


def _summarised(resolution: EntityResolution, sentences: dict[str, list[tuple[str, ...]]]) -> dict[str, EntityState]:
    entities = dict(resolution.entities.by_id)
    for entity_id, groups in sentences.items():
        summary = summary_fold(entities[entity_id].summary, groups)
        if summary != entities[entity_id].summary:
            entities[entity_id] = replace(entities[entity_id], summary=summary)
    return entities


def _entity_vectors(
    work: list[_EpisodeWork], resolution: EntityResolution, entities: dict[str, EntityState], vectors: _Vectors
) -> dict[str, list[float]]:
    """One embedding call for the batch's new entities and those whose summary changed: their stored vector
    embeds the name and the summary (memoria.graph.searchable), so a summary written here is searchable now."""
    touched = sorted({resolution.resolved[m.key] for item in work for m in item.extraction.entities})
    changed = [
        entity_id
        for entity_id in touched
        if entities[entity_id].is_new or entities[entity_id].summary != resolution.entities.by_id[entity_id].summary
    ]
    texts = [node_text(is_episode=False, name=entities[e].name, summary=entities[e].summary) for e in changed]
    return dict(zip(changed, vectors.embed(texts), strict=True))


def _new_fact_props(fact: FactState, group: str, model: str) -> dict:
    props = {
        "id": fact.id,
        "group_id": group,
        "relation": fact.relation,
        "relation_category": fact.category,
        "fact": fact.fact,
        "fact_embedding": fact.vector,
        "valid_at": fact.valid_at,
        "episodes": list(fact.episodes),
        "weight": fact.weight,
        "tags": list(fact.tags),
        "invalid_at": fact.invalid_at,
        "expired_at": fact.expired_at,
    }
    if fact.vector is not None:
        props[VECTOR_MODEL] = model
        props[VECTOR_TEXT] = SEARCHABLE_TEXT_VERSION
    return props


@dataclass(frozen=True)
class _Summaries:
    """The entities after step 6, the vectors of those whose text changed, and what the batch said of each."""

    entities: dict[str, EntityState]
    vectors: dict[str, list[float]]
    sentences: dict[str, list[tuple[str, ...]]]


def _entity_writes(
    group: str, now: str, touched: set[str], resolution: EntityResolution, summaries: _Summaries, model: str
) -> tuple[tuple[EntityRow, ...], tuple[EntityUpdate, ...]]:
    """New entities, written whole, and what the batch adds to stored ones (a longer summary, new aliases)."""
    created: list[EntityRow] = []
    extended: list[EntityUpdate] = []
    for entity_id in sorted(touched):
        entity = summaries.entities[entity_id]
        before = resolution.entities.by_id[entity_id]
        vector = summaries.vectors.get(entity_id)
        if entity.is_new:
            attributes = {**entity.attributes, "aliases": list(entity.aliases)} if entity.aliases else entity.attributes
            props = {
                "id": entity.id,
                "group_id": group,
                "name": entity.name,
                "created_at": now,
                "summary": entity.summary,
                "name_embedding": vector,
                VECTOR_MODEL: model if vector is not None else None,
                VECTOR_TEXT: SEARCHABLE_TEXT_VERSION if vector is not None else None,
                "attributes": attributes_json(attributes),
            }
            created.append(EntityRow(entity.id, entity.labels, props))
            continue
        stored_aliases = tuple(entity.attributes.get("aliases", ()))
        learned = tuple(alias for alias in entity.aliases if alias not in stored_aliases)
        if entity.summary != before.summary or learned:
            extended.append(
                EntityUpdate(
                    id=entity.id,
                    name=entity.name,
                    summary_read=before.summary,
                    summary=entity.summary,
                    sentences=tuple(summaries.sentences.get(entity_id, ())),
                    vector=vector,
                    aliases=learned,
                )
            )
    return tuple(created), tuple(extended)


def _write_plan(
    group: str,
    now: str,
    work: list[_EpisodeWork],
    episode_vectors: list[list[float] | None],
    resolution: EntityResolution,
    summaries: _Summaries,
    facts: FactWorkingSet,
    *,
    model: str,
) -> WritePlan:
    episodes = tuple(
        EpisodeRow(
            item.episode.id,
            {
                "id": item.episode.id,
                "group_id": group,
                "name": item.episode.name,
                "content": item.episode.content,
                "source": item.episode.source,
                "source_description": item.episode.source_description,
                PRECEDING_PROPERTY: item.preceding,
                "valid_at": item.episode.reference_time,
                "embedding": vector,
                VECTOR_MODEL: model if vector is not None else None,
                VECTOR_TEXT: SEARCHABLE_TEXT_VERSION if vector is not None else None,
                "created_at": now,
                **item.episode.scope.stored_properties(),
            },
        )
        for item, vector in zip(work, episode_vectors, strict=True)
    )
    touched = {resolution.resolved[m.key] for item in work for m in item.extraction.entities}
    entities, entity_updates = _entity_writes(group, now, touched, resolution, summaries, model)
    changed = [facts.by_id[fact_id] for fact_id in sorted(facts.changed)]
    new_facts = tuple(
        FactRow(fact.id, fact.source, fact.target, _new_fact_props(fact, group, model))
        for fact in changed
        if fact.is_new
    )
    # A stored fact the batch changed was current when read: it gained sightings, or the batch ended it.
    fact_updates = tuple(
        FactUpdate(fact.id, fact.source, fact.target, fact.sightings, fact.invalid_at, fact.expired_at)
        for fact in changed
        if not fact.is_new
    )
    mentions = tuple(
        dict.fromkeys(
            (item.episode.id, resolution.resolved[mention.key]) for item in work for mention in item.extraction.entities
        )
    )
    return WritePlan(
        group,
        now,
        episodes,
        entities=entities,
        entity_updates=entity_updates,
        facts=new_facts,
        fact_updates=fact_updates,
        mentions=mentions,
        reads=facts.reads,
        model=model,
    )


def _results(work: list[_EpisodeWork], resolution: EntityResolution, facts: FactWorkingSet) -> list[EpisodeResult]:
    results = []
    created_entities: set[str] = set()
    for item in work:
        mentioned = tuple(dict.fromkeys(resolution.resolved[m.key] for m in item.extraction.entities))
        new = tuple(
            entity_id
            for entity_id in mentioned
            if resolution.entities.by_id[entity_id].is_new and entity_id not in created_entities
        )
        created_entities.update(new)
        ends = [
            end
            for fact_id in (*item.created, *item.merged, *item.invalidated)
            for end in (facts.by_id[fact_id].source, facts.by_id[fact_id].target)
        ]
        results.append(
            EpisodeResult(
                episode_id=item.episode.id,
                name=item.episode.name,
                added=True,
                entities=mentioned,
                entities_created=new,
                facts_created=item.created,
                facts_merged=item.merged,
                facts_invalidated=item.invalidated,
                touched_entities=tuple(dict.fromkeys((*mentioned, *ends))),
            )
        )
    return results
