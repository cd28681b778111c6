"""Build a context block: search the group (facts held at `as_of`, else now), follow the graph from the entities
found by Activation Energy for facts the search missed, add the involved entities' summaries and the relevant
episodes, and pack them best first into a token budget.

The budget is counted with the embedding model's own tokenizer (offline), on the very lines the text holds; the
text is rebuilt from the kept lines and counted again, so it never exceeds the budget. Given the same memory and
request the text is the same: ordering is by score, then id, and "now" never appears in it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from asgiref.sync import async_to_sync

from memoria.browse.records import FACT_COLUMNS, EdgeCard
from memoria.browse.selectors import node_detail
from memoria.embeddings import embedder
from memoria.errors import NodeNotFound
from memoria.graph import driver, kinds
from memoria.graph.asof import valid_time
from memoria.graph.rules import TIMESTAMP_FORMAT
from memoria.retrieval.activation import Seed
from memoria.retrieval.event_types import EventType
from memoria.retrieval.request import ActivationRequest
from memoria.retrieval.runs import activation_run
from memoria.search.config import SearchConfig
from memoria.search.methods import FACT_HOLDS
from memoria.search.recipes import recipe
from memoria.search.service import SearchHit, search

SEARCH_RECIPE = "combined_hybrid_rrf"
SEARCH_LIMIT = 20  # candidates per kind: more than a small budget holds, so the budget is what decides
MAX_ENTITY_LOOKUPS = 20  # fact ends not among the entity hits, read for their summaries
MAX_LINE_CHARACTERS = 600  # an episode's content, or a summary, is cut to this in its line
ACTIVATION_SEEDS = 5  # the best entities found, as the retriever's own seed search takes
FACT, ENTITY, EPISODE = "fact", "entity", "episode"
# The facts met on activation paths that hold at the moment, by (id, stored source, stored target) so the id index
# is used; the rule of holding is search's own (FACT_HOLDS), not a copy.
HOLDING_FACTS = f"""
UNWIND $rows AS row
MATCH (:Memory {{group_id: $group, id: row.source}})-[r:RELATES]->(:Memory {{group_id: $group, id: row.target}})
WHERE r.id = row.id AND r.group_id = $group AND {FACT_HOLDS}
RETURN {FACT_COLUMNS}
"""
SECTIONS = ((FACT, "Facts"), (ENTITY, "Entities"), (EPISODE, "Episodes"))


@dataclass(frozen=True)
class ContextItem:
    kind: str
    id: str
    score: float
    line: str
    tokens: int = 0
    name: str | None = None
    valid_at: str | None = None
    invalid_at: str | None = None

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if self.kind != FACT:
            data.pop("valid_at")
            data.pop("invalid_at")
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
        """The answer of every face: with the items (`form` json) or the text alone (text)."""
        items = {"items": [item.as_dict() for item in self.items]} if form == "json" else {}
        return {
            "group": self.group,
            "query": self.query,
            "as_of": self.as_of,
            "budget_tokens": self.budget_tokens,
            "used_tokens": self.used_tokens,
            "left_out": self.left_out,
            **items,
            "text": self.text,
        }


def _cut(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= MAX_LINE_CHARACTERS else flat[: MAX_LINE_CHARACTERS - 1].rstrip() + "…"


def _validity(valid_at: str | None, invalid_at: str | None) -> str:
    if valid_at and invalid_at:
        return f" (from {valid_at} until {invalid_at})"
    if valid_at:
        return f" (since {valid_at})"
    if invalid_at:
        return f" (until {invalid_at})"
    return ""


def _fact_item(fact_id: str, text: str, score: float, valid_at: str | None, invalid_at: str | None) -> ContextItem:
    return ContextItem(
        FACT, fact_id, score, f"- {_cut(text)}{_validity(valid_at, invalid_at)}", None, valid_at, invalid_at
    )


async def _paths(request: ActivationRequest) -> list[dict[str, Any]]:
    return [event async for event in activation_run(request) if event["type"] == EventType.SEED_FINISHED]


def activation_facts(*, group: str, entities: list[SearchHit], moment: str) -> list[tuple[EdgeCard, float]]:
    """Facts on the activation paths from the best entities found, that hold at `moment`, by transfer energy."""
    best = entities[0].score if entities else 0.0
    if best <= 0:
        return []
    seeds = tuple(Seed(hit.id, hit.score / best) for hit in entities[:ACTIVATION_SEEDS])
    # The walk itself at the moment: a fact that ended before it (or began after) neither carries energy nor
    # counts in a degree, so the paths are the ones that held then (HOLDING_FACTS below keeps them exact).
    at = valid_time(moment)
    finished = async_to_sync(_paths)(ActivationRequest(group=group, seeds=seeds, query_tags=(), moment=at))
    energy: dict[str, float] = {}
    ends: dict[str, tuple[str, str]] = {}
    for event in finished:
        for path in event["paths"]:
            for hop in path["hops"]:
                stored = (hop["source"], hop["target"]) if hop["direction"] == "out" else (hop["target"], hop["source"])
                ends[hop["edge_id"]] = stored
                energy[hop["edge_id"]] = max(energy.get(hop["edge_id"], 0.0), hop["transfer_energy"])
    if not ends:
        return []
    rows = [{"id": edge_id, "source": source, "target": target} for edge_id, (source, target) in ends.items()]
    holding = driver.read(HOLDING_FACTS, rows=rows, group=group, **at.nullable_parameters())
    cards = [EdgeCard.from_fact_row(row) for row in holding]
    return sorted(((card, energy[card.id]) for card in cards), key=lambda pair: (-pair[1], pair[0].id))


def _ranked(hits: tuple[SearchHit, ...]) -> list[SearchHit]:
    return sorted(hits, key=lambda hit: (-hit.score, hit.id))


@dataclass
class _Candidates:
    items: list[ContextItem] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)

    def add(self, item: ContextItem) -> None:
        if item.id not in self.seen:
            self.seen.add(item.id)
            self.items.append(item)


def _candidates(*, group: str, query: str, moment: str) -> list[ContextItem]:
    searched = recipe(SEARCH_RECIPE, limit=SEARCH_LIMIT)
    config = SearchConfig(facts=searched.facts, entities=searched.entities, episodes=searched.episodes)
    found = search(query=query, groups=[group], config=config, valid_at=moment)
    chosen = _Candidates()
    facts = _ranked(found.facts)
    entities = _ranked(found.entities)
    for hit in facts:
        chosen.add(_fact_item(hit.id, hit.text or hit.name, hit.score, hit.valid_at, hit.invalid_at))
    walked = activation_facts(group=group, entities=entities, moment=moment)
    for card, energy in walked:
        chosen.add(_fact_item(card.id, card.fact or card.relation, energy, card.valid_at, card.invalid_at))
    for hit in entities:
        chosen.add(ContextItem(ENTITY, hit.id, hit.score, _entity_line(hit.name, hit.text), hit.name))
    fact_ends = [(hit.source, hit.target) for hit in facts] + [(card.source, card.target) for card, _ in walked]
    ends = [end for pair in fact_ends for end in pair if end and end not in chosen.seen]
    for end in list(dict.fromkeys(ends))[:MAX_ENTITY_LOOKUPS]:
        try:
            detail = node_detail(group=group, node_id=end, kind=kinds.ENTITY)
        except NodeNotFound:  # deleted since the search, or not an entity
            continue
        chosen.add(ContextItem(ENTITY, end, 0.0, _entity_line(detail.card.name, detail.summary), detail.card.name))
    for hit in _ranked(found.episodes):
        chosen.add(ContextItem(EPISODE, hit.id, hit.score, f"- {hit.name}: {_cut(hit.text)}", hit.name))
    return chosen.items


def _entity_line(name: str, summary: str) -> str:
    return f"- {name}: {_cut(summary)}" if summary.strip() else f"- {name}"


def _header(as_of: str | None) -> str:
    """Short and bounded (no query, no group name): the smallest budget always leaves room for items."""
    return f"Memory as of {as_of}:" if as_of else "Memory (facts that hold now):"


def _render(header: str, items: list[ContextItem]) -> str:
    lines = [header]
    for kind, title in SECTIONS:
        kept = [item.line for item in items if item.kind == kind]
        if kept:
            lines += [f"{title}:", *kept]
    return "\n".join(lines)


def context_build(*, group: str, query: str, budget_tokens: int, as_of: str | None = None) -> ContextBlock:
    """The context block for `query` within `budget_tokens`; facts held at `as_of` (a stored timestamp) or now."""
    moment = as_of or datetime.now(UTC).strftime(TIMESTAMP_FORMAT)
    candidates = _candidates(group=group, query=query, moment=moment)
    counter = embedder()
    header = _header(as_of)
    titles = dict(SECTIONS)
    counts = counter.token_counts([header, *titles.values(), *(item.line for item in candidates)])
    header_tokens, title_tokens = counts[0], dict(zip(titles, counts[1 : 1 + len(titles)], strict=True))
    used = header_tokens
    kept: list[ContextItem] = []
    opened: set[str] = set()
    for item, tokens in zip(candidates, counts[1 + len(titles) :], strict=True):
        cost = tokens + (0 if item.kind in opened else title_tokens[item.kind])
        if used + cost > budget_tokens:
            continue  # a shorter item further down may still fit
        used += cost
        opened.add(item.kind)
        kept.append(ContextItem(**{**asdict(item), "tokens": tokens}))
    text = _render(header, kept)
    used = counter.token_counts([text])[0]
    while kept and used > budget_tokens:  # lines are counted apart; the whole text is the measure
        kept.pop()
        text = _render(header, kept)
        used = counter.token_counts([text])[0]
    return ContextBlock(
        group=group,
        query=query,
        as_of=as_of,
        budget_tokens=budget_tokens,
        used_tokens=used,
        text=text,
        items=tuple(kept),
        left_out=len(candidates) - len(kept),
    )
