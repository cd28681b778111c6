"""Build a context block: the most evidence a budget of LLM tokens (o200k_base) can carry about a query.

Search the group (facts that hold at `as_of`, else now; entities; episodes by the default episodes recipe), rank the
episodes with the episodes the found facts came from (RRF, as `evaluate`'s hybrid reads them), follow the graph from
the best entities by Activation Energy for chains of facts the search missed, then pack one line per distinct piece
of memory, best first: an episode with the facts drawn from it that add to what it says, a fact whose episode is
not shown, a chain of facts in hop order, and last entity summaries that add words nothing above them says.
Episodes dated after `as_of`, and summaries written from them, are left out. The same memory and request give the
same text: ties are broken by id, and "now" never appears in it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from memoria.browse.records import EdgeCard
from memoria.context import lines
from memoria.context.packing import MIN_CUT_TOKENS, Packed, Piece, pack
from memoria.context.sources import EpisodeRow, Mention, entity_mentions, episode_rows, fact_cards, walk
from memoria.graph.rules import TIMESTAMP_FORMAT
from memoria.requests.scope import MemoryScope
from memoria.search.config import Scope, SearchConfig
from memoria.search.recipes import SCOPE_DEFAULT_RECIPES, recipe
from memoria.search.rerankers import rrf
from memoria.search.scoped import scope_members
from memoria.search.service import SearchHit, search

# Candidates per scope: more than a budget of 2,000 tokens holds of LoCoMo's turns (about 40 tokens a line), so the
# budget, not the search, decides what is left out; fixed, so blocks of every budget share one candidate set.
SEARCH_LIMIT = 40
ENTITY_CANDIDATES = 5  # entity summaries come last: only the best few can add anything
ENTITY_EPISODES = 3  # an entity names the newest episodes that mention it
FACT, CHAIN, EPISODE, ENTITY = "fact", "chain", "episode", "entity"
FACTS, CHAINS, EPISODES, ENTITIES = "Facts", "Connected facts, in order", "Episodes", "Entities"
SECTIONS = (FACTS, CHAINS, EPISODES, ENTITIES)
SECTION_OF = {FACT: FACTS, CHAIN: CHAINS, EPISODE: EPISODES, ENTITY: ENTITIES}


@dataclass(frozen=True)
class ContextItem:
    """One line of the block and where it comes from: `line` is its index in `text.splitlines()`."""

    kind: str
    id: str
    line: int
    tokens: int
    episodes: tuple[tuple[str, str], ...] = ()  # (id, name) of its source episodes, for citing
    valid_at: str | None = None
    invalid_at: str | None = None
    facts: tuple[str, ...] = ()  # a chain's facts in hop order; the facts an episode line carries
    merged: tuple[str, ...] = ()  # ids of near-identical pieces shown as this one
    cut: bool = False

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "kind": self.kind,
            "id": self.id,
            "line": self.line,
            "tokens": self.tokens,
            "episodes": [{"id": episode, "name": name} for episode, name in self.episodes],
        }
        if self.kind == FACT:
            data.update(valid_at=self.valid_at, invalid_at=self.invalid_at)
        optional = {"facts": list(self.facts), "merged": list(self.merged), "cut": self.cut}
        data.update({name: value for name, value in optional.items() if value})
        return data


@dataclass(frozen=True)
class ContextBlock:
    group: str
    query: str
    as_of: str | None
    budget_tokens: int
    used_tokens: int
    text: str
    items: tuple[ContextItem, ...] = ()
    left_out: int = 0  # candidates that did not fit

    def as_dict(self, *, form: str = "json") -> dict[str, Any]:
        """The answer of every face: the text and its counts, and with `form` json the items that cite it."""
        items = {"items": [item.as_dict() for item in self.items]} if form == "json" else {}
        return {
            "group": self.group,
            "query": self.query,
            "as_of": self.as_of,
            "budget_tokens": self.budget_tokens,
            "used_tokens": self.used_tokens,
            "left_out": self.left_out,
            "text": self.text,
            **items,
        }

    @property
    def episode_ids(self) -> tuple[str, ...]:
        """The episodes whose own text the block shows (whole or cut), in the order taken."""
        return tuple(item.id for item in self.items if item.kind == EPISODE)


@dataclass
class _Source:
    """A piece's provenance while the block is assembled."""

    kind: str
    id: str
    episodes: list[tuple[str, str]] = field(default_factory=list)
    valid_at: str | None = None
    invalid_at: str | None = None
    facts: list[str] = field(default_factory=list)
    merged: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Fact:
    id: str
    text: str
    valid_at: str | None
    invalid_at: str | None
    episodes: tuple[str, ...]


def search_config(limit: int) -> SearchConfig:
    """Facts, entities and episodes, each by the recipe a search of that scope runs by default."""
    scoped = {
        scope.value: getattr(recipe(SCOPE_DEFAULT_RECIPES[scope], limit=limit), scope.value)
        for scope in (Scope.FACTS, Scope.ENTITIES, Scope.EPISODES)
    }
    return SearchConfig(**scoped)


def _ranked(hits: tuple[SearchHit, ...]) -> list[SearchHit]:
    return sorted(hits, key=lambda hit: (-hit.score, hit.id))


def header_for(as_of: str | None) -> str:
    """Short and bounded (no query, no group name): the smallest budget always leaves room for items."""
    return f"Memory as of {lines.day(as_of)} (what held then):" if as_of else "Memory (what holds now):"


def _fact_of_hit(hit: SearchHit, episodes: tuple[str, ...]) -> _Fact:
    return _Fact(hit.id, hit.text or hit.name, hit.valid_at, hit.invalid_at, episodes)


def _fact_of_card(card: EdgeCard) -> _Fact:
    text = card.fact or f"{card.source_name} {card.relation.replace('_', ' ').lower()} {card.target_name}"
    return _Fact(card.id, text, card.valid_at, card.invalid_at, card.episodes)


class _Assembly:
    """Pieces in rank order, each distinct: near-identical lines merge, a fact is shown once."""

    def __init__(self, days: frozenset[str], visible: dict[str, EpisodeRow]) -> None:
        self.days = days
        self.visible = visible
        self.pieces: list[Piece] = []
        self.sources: dict[str, _Source] = {}
        self.words: dict[str, frozenset[str]] = {}
        self.shown_facts: set[str] = set()
        self.sublines: list[frozenset[str]] = []  # the words of facts shown under their episodes

    def _episodes(self, ids: tuple[str, ...]) -> list[tuple[str, str]]:
        return [(episode, self.visible[episode].name) for episode in ids if episode in self.visible]

    def add(self, piece: Piece, source: _Source) -> bool:
        said = lines.words(piece.line)
        for key, other in self.words.items():
            if self.sources[key].kind == source.kind and lines.same(said, other):
                kept = self.sources[key]
                kept.merged.append(source.id)
                kept.episodes += [pair for pair in source.episodes if pair not in kept.episodes]
                return False
        self.pieces.append(piece)
        self.sources[piece.key] = source
        self.words[piece.key] = said
        return True

    def fact_line(self, fact: _Fact) -> str:
        return lines.fact_text(fact.text, fact.valid_at, fact.invalid_at, self.days)

    def episode(self, row: EpisodeRow, facts: list[_Fact]) -> None:
        """The episode's line, and under it the facts drawn from it that say more than it does (another word, or a
        date of their own)."""
        said = lines.words(f"{row.name} {row.content}")
        adding: list[_Fact] = []
        for fact in facts:
            dated = fact.invalid_at or (fact.valid_at and lines.day(fact.valid_at) != lines.day(row.at))
            if fact.id in self.shown_facts or (lines.says(said, lines.words(fact.text)) and not dated):
                continue
            fact_words = lines.words(self.fact_line(fact))
            if any(lines.same(fact_words, other) for other in [*self.words.values(), *self.sublines]):
                continue  # the same fact, stated again by another episode: shown once
            self.sublines.append(fact_words)
            adding.append(fact)
        sublines = tuple(f"  + {self.fact_line(fact)}" for fact in adding)
        line = lines.episode_line(row.name, row.content, row.at, self.days)
        source = _Source(EPISODE, row.id, [(row.id, row.name)], facts=[fact.id for fact in adding])
        if self.add(Piece(f"{EPISODE}:{row.id}", EPISODES, line, sublines), source):
            self.shown_facts.update(fact.id for fact in facts)

    def fact(self, fact: _Fact) -> None:
        if fact.id in self.shown_facts:
            return
        source = _Source(FACT, fact.id, self._episodes(fact.episodes), fact.valid_at, fact.invalid_at)
        if self.add(Piece(f"{FACT}:{fact.id}", FACTS, f"- {self.fact_line(fact)}"), source):
            self.shown_facts.add(fact.id)

    def chain(self, facts: list[_Fact]) -> None:
        """A path of the walk as one line, its facts in hop order; not when a fact of it is already shown."""
        if any(fact.id in self.shown_facts for fact in facts):
            return
        line = "- " + " → ".join(self.fact_line(fact) for fact in facts)
        episodes = self._episodes(tuple(episode for fact in facts for episode in fact.episodes))
        source = _Source(CHAIN, facts[0].id, list(dict.fromkeys(episodes)), facts=[fact.id for fact in facts])
        if self.add(Piece(f"{CHAIN}:{'/'.join(fact.id for fact in facts)}", CHAINS, line), source):
            self.shown_facts.update(fact.id for fact in facts)

    def entity(self, hit: SearchHit, mentions: list[Mention]) -> None:
        """An entity's summary, when it adds words to everything ranked above it."""
        summary = lines.flat(hit.text, lines.MAX_TEXT_CHARACTERS)
        above = frozenset().union(*self.words.values()) if self.words else frozenset()
        if not summary or lines.says(above, lines.words(summary)):
            return
        episodes = [(mention.id, mention.name) for mention in mentions[:ENTITY_EPISODES]]
        self.add(
            Piece(f"{ENTITY}:{hit.id}", ENTITIES, lines.entity_line(hit.name, hit.text)),
            _Source(ENTITY, hit.id, episodes),
        )


def _items(packed: Packed, sources: dict[str, _Source]) -> tuple[ContextItem, ...]:
    items = []
    for piece in packed.pieces:
        source = sources[piece.key]
        items.append(
            ContextItem(
                kind=source.kind,
                id=source.id,
                line=packed.line_numbers[piece.key],
                tokens=packed.tokens[piece.key],
                episodes=tuple(source.episodes),
                valid_at=source.valid_at,
                invalid_at=source.invalid_at,
                facts=() if piece.cut and source.kind == EPISODE else tuple(source.facts),
                merged=tuple(source.merged),
                cut=piece.cut,
            )
        )
    return tuple(items)


@dataclass
class ContextCandidates:
    """Everything a block of any budget is packed from: the pieces in rank order, and the entities whose summaries
    may come last (read only when a budget leaves room for them, then kept for the next budget)."""

    group: str
    query: str
    as_of: str | None
    moment: str
    assembly: _Assembly
    summarised: list[SearchHit]
    base: int = 0  # how many of the assembly's pieces are not entities
    entities_read: bool = False

    def entity_pieces(self) -> None:
        if self.entities_read:
            return
        self.entities_read = True
        mentions = entity_mentions(self.group, [hit.id for hit in self.summarised])
        for hit in self.summarised:
            known = mentions.get(hit.id, [])
            # A summary is written from the episodes that mention the entity: one of them after as_of means the
            # summary says what was not known then, and no earlier version of it is stored.
            if self.as_of is not None and any((mention.at or "") > self.moment for mention in known):
                continue
            self.assembly.entity(hit, known)


def context_candidates(
    *, group: str, query: str, as_of: str | None = None, scope: MemoryScope | None = None
) -> ContextCandidates:
    """Search, walk and read what a block about `query` is made of; what held at `as_of` (a stored timestamp), or
    now. The search depth does not depend on the budget, so blocks of several budgets share one candidate set.

    With a memory `scope`, every piece is the scope's: its episodes, facts drawn from them (the walk's too), and no
    entity summaries, which are written from the episodes of every scope that mention the entity."""
    moment = as_of or datetime.now(UTC).strftime(TIMESTAMP_FORMAT)
    members = scope_members(group=group, scope=scope) if scope is not None and not scope.empty else None
    found = search(query=query, groups=[group], config=search_config(SEARCH_LIMIT), valid_at=moment, scope=scope)
    hits = _ranked(found.facts)
    entities = _ranked(found.entities)
    walked = walk(group=group, entities=entities, moment=moment)
    cards = fact_cards(group, {**walked.ends, **{hit.id: (hit.source or "", hit.target or "") for hit in hits}}, moment)
    facts = {hit.id: _fact_of_hit(hit, cards[hit.id].episodes if hit.id in cards else ()) for hit in hits}
    strongest = sorted(walked.energy, key=lambda edge: (-walked.energy[edge], edge))
    walk_facts = {
        edge: _fact_of_card(cards[edge])
        for edge in strongest
        if edge in cards and (members is None or edge in members.facts)
    }
    wanted = [hit.id for hit in found.episodes] + [
        episode for fact in [*facts.values(), *walk_facts.values()] for episode in fact.episodes
    ]
    rows = episode_rows(group, list(dict.fromkeys(wanted)))
    # An episode of a later time than as_of was not there yet; without as_of every stored episode is.
    visible = {
        key: row
        for key, row in rows.items()
        if (as_of is None or (row.at or "") <= moment) and (members is None or key in members.episodes)
    }

    def home(fact: _Fact) -> str:
        shown = [episode for episode in fact.episodes if episode in visible]
        return f"{EPISODE}:{shown[0]}" if shown else f"{FACT}:{fact.id}"

    by_episode: dict[str, list[_Fact]] = {}
    for fact in {**walk_facts, **facts}.values():
        by_episode.setdefault(home(fact), []).append(fact)
    episode_rank = [f"{EPISODE}:{hit.id}" for hit in _ranked(found.episodes) if hit.id in visible]
    fact_rank = list(dict.fromkeys(home(fact) for fact in facts.values()))
    order = [key for key, _ in rrf([episode_rank, fact_rank])]
    # A time of day tells apart the episodes of one day (a conversation's turns); facts read by their day.
    days = lines.timed_days([row.at for row in visible.values()])
    assembly = _Assembly(days, visible)
    for key in order:
        kind, _, item_id = key.partition(":")
        if kind == EPISODE:
            assembly.episode(visible[item_id], by_episode.get(key, []))
        else:
            assembly.fact(facts[item_id])
    for chain in walked.chains:
        if all(edge in walk_facts for edge in chain):  # every fact of it holds at the moment
            assembly.chain([walk_facts[edge] for edge in chain])
    for fact in walk_facts.values():  # what the walk found that no episode shown above carries
        assembly.fact(fact)
    summarised = [hit for hit in entities[:ENTITY_CANDIDATES] if hit.text.strip()] if members is None else []
    return ContextCandidates(group, query, as_of, moment, assembly, summarised, base=len(assembly.pieces))


def context_pack(candidates: ContextCandidates, budget_tokens: int) -> ContextBlock:
    """The best pieces within `budget_tokens` o200k_base tokens; entity summaries only in room the rest left."""
    header = header_for(candidates.as_of)
    assembly = candidates.assembly
    packed = pack(header=header, sections=SECTIONS, pieces=assembly.pieces[: candidates.base], budget=budget_tokens)
    if candidates.summarised and budget_tokens - packed.used_tokens >= MIN_CUT_TOKENS:
        candidates.entity_pieces()
        if len(assembly.pieces) > candidates.base:
            packed = pack(header=header, sections=SECTIONS, pieces=assembly.pieces, budget=budget_tokens)
    return ContextBlock(
        group=candidates.group,
        query=candidates.query,
        as_of=candidates.as_of,
        budget_tokens=budget_tokens,
        used_tokens=packed.used_tokens,
        text=packed.text,
        items=_items(packed, assembly.sources),
        left_out=packed.left_out,
    )


def context_build(
    *, group: str, query: str, budget_tokens: int, as_of: str | None = None, scope: MemoryScope | None = None
) -> ContextBlock:
    """The context block for `query` within `budget_tokens` o200k_base tokens; what held at `as_of`, or now; of a
    memory scope's memories when one is given."""
    return context_pack(context_candidates(group=group, query=query, as_of=as_of, scope=scope), budget_tokens)
