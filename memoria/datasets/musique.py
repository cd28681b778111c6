"""Turn HippoRAG's MuSiQue slice into one graph document, so real LLM-extracted triples load through the import path.

The mapping and its weight, tag and category rules are described in docs/datasets.md and the constants below.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from memoria.datasets.records import CorpusPassage, OpenieDocument
from memoria.errors import InvalidGraphDocument, InvalidInput
from memoria.graph.rules import (
    MAX_NAME_LENGTH,
    MAX_RELATION_LENGTH,
    MAX_TAG_LENGTH,
    MAX_TAGS,
    MAX_TAGS_PER_FACT,
    MAX_WEIGHT,
    relation_problem,
    shown,
    text_problem,
)
from memoria.interchange.jsontext import file_bytes, json_decode
from memoria.interchange.records import record_parse
from memoria.requests.vocabulary import GroupName, RequestModel, input_parse

CORPUS_FILE = "corpus.json"
OPENIE_FILE = "openie.json"

MAX_PROBLEMS = 50
MAX_SKIP_EXAMPLES = 20

# Ids carry the group so the same dataset can be loaded into two groups (ids are global).
EPISODE_ID = "mq:{group}:p{index}"
ENTITY_ID = "mq:{group}:e:{digest}"  # digest = sha1(normalised name)[:16]

# Weight: a single passage gives 0.5; each further passage asserting the same triple adds 0.25, up to 1.0.
BASE_WEIGHT = 0.5
CORROBORATION_STEP = 0.25

# Tags: the predicate's content words (stop words dropped, at most 8), then the slug of each asserting passage's
# title (lower case, runs of non-letters/digits → "_", at most 64 characters); deduplicated, at most 32.
PREDICATE_STOP_WORDS = frozenset(
    {
        "a",
        "an",
        "the",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "has",
        "have",
        "had",
        "of",
        "in",
        "on",
        "at",
        "by",
        "to",
        "for",
        "with",
        "as",
        "from",
        "into",
        "and",
        "or",
        "its",
        "it",
        "that",
        "this",
    }
)

# Category rules. Phrases are matched as whole words inside the normalised predicate ("is part of" has
# "part of"); the first category with a match wins, in CATEGORY_RULES order, after the date-like-object rule.
# Idioms that would otherwise trip a later rule ("named after" is not temporal) stay ATTRIBUTION.
ATTRIBUTION_PHRASES = (
    "named after",
    "renamed after",
    "name after",
    "modelled after",
    "modeled after",
    "looks after",
    "looked after",
)
HIERARCHICAL_PHRASES = (
    "part of",
    "member of",
    "members of",
    "member states",
    "is a",
    "is an",
    "was a",
    "was an",
    "are a",
    "type of",
    "kind of",
    "form of",
    "subsidiary",
    "subsidiaries",
    "division of",
    "branch of",
    "unit of",
    "subset of",
    "tributary",
    "belongs to",
    "belonged to",
    "consists of",
    "consisted of",
    "comprises",
    "comprised of",
    "includes",
    "include",
    "included",
    "including",
    "contains",
    "contained",
    "instance of",
    "category",
    "genus",
    "species",
    "subclass",
    "subfamily",
    "parent company",
    "has member",
    "has members",
)
CAUSALITY_PHRASES = (
    "caused",
    "causes",
    "cause",
    "causing",
    "cause of",
    "led to",
    "leads to",
    "lead to",
    "resulted in",
    "results in",
    "result of",
    "resulting in",
    "because",
    "due to",
    "triggered",
    "contributed to",
    "responsible for",
    "prompted",
    "effect",
    "effects",
    "influenced",
    "consequence",
)
SPATIAL_PHRASES = (
    "located",
    "location",
    "locations",
    "capital",
    "country",
    "city",
    "town",
    "village",
    "border",
    "borders",
    "bordered",
    "bordering",
    "flows",
    "flow",
    "flowing",
    "near",
    "situated",
    "lies",
    "headquartered",
    "headquarters",
    "based in",
    "region",
    "province",
    "continent",
    "adjacent",
    "surrounded by",
    "mouth",
    "held in",
    "born in",
    "died in",
    "lived in",
    "moved to",
    "takes place in",
    "took place in",
    "hosted in",
    "set in",
    "north",
    "south",
    "east",
    "west",
)
# Bare prepositions say "where" only when they are the whole predicate ("starred in" is not spatial).
SPATIAL_PREDICATES = frozenset({"in", "at", "is in", "was in", "are in", "is at", "was at", "inside", "within"})
TEMPORAL_PHRASES = (
    "date",
    "dates",
    "dated",
    "year",
    "years",
    "before",
    "after",
    "since",
    "until",
    "during",
    "century",
    "decade",
    "era",
    "period",
    "founded in",
    "founded on",
    "established in",
    "established on",
    "began",
    "ended",
    "lasted",
    "born on",
    "died on",
    "age",
    "aged",
)
CATEGORY_RULES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ATTRIBUTION", ATTRIBUTION_PHRASES),
    ("HIERARCHICAL", HIERARCHICAL_PHRASES),
    ("CAUSALITY", CAUSALITY_PHRASES),
    ("SPATIAL", SPATIAL_PHRASES),
    ("TEMPORAL", TEMPORAL_PHRASES),
)
DEFAULT_CATEGORY = "ATTRIBUTION"

# An object is date-like when every word is a number, a month or one of DATE_WORDS, and something in it pins
# a date: a month, a year (1000 to 2099, or a decade such as 1990s), a century or an era marker (BC, AD...).
MONTHS = frozenset(
    {
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
    }
)
DATE_ANCHORS = frozenset({"century", "centuries", "bc", "bce", "ad", "ce"})
DATE_WORDS = frozenset(
    {
        "the",
        "of",
        "early",
        "late",
        "mid",
        "circa",
        "c",
        "ca",
        "around",
        "about",
        "spring",
        "summer",
        "autumn",
        "fall",
        "winter",
        "on",
        "in",
        "year",
        "years",
        "decade",
    }
)
NUMBER_WORD = re.compile(r"\d{1,4}(?:s|st|nd|rd|th)?")
YEAR_WORD = re.compile(r"(?:1\d{3}|20\d{2})s?")
WORD = re.compile(r"[^\W_]+")


@dataclass
class MusiqueStats:
    """What the load command reports: how much was built and how much of the extraction was thrown away."""

    episodes: int = 0
    entities: int = 0
    facts: int = 0
    mentions: int = 0
    triples_read: int = 0
    duplicate_triples: int = 0
    skipped_malformed: int = 0
    skipped_self_loops: int = 0
    skipped_long_names: int = 0
    skipped_entities: int = 0
    skipped_examples: list[str] = field(default_factory=list)

    @property
    def skipped_triples(self) -> int:
        return self.skipped_malformed + self.skipped_self_loops + self.skipped_long_names

    def as_dict(self) -> dict[str, int]:
        counts = {key: value for key, value in asdict(self).items() if isinstance(value, int)}
        return {**counts, "skipped_triples": self.skipped_triples}

    def skip(self, counter: str, where: str, reason: str) -> None:
        setattr(self, counter, getattr(self, counter) + 1)
        if len(self.skipped_examples) < MAX_SKIP_EXAMPLES:
            self.skipped_examples.append(f"{where}: {reason}")


@dataclass(frozen=True)
class MusiqueImport:
    """The document together with its stats, because skipped triples cannot be recounted from the document."""

    document: dict[str, Any]
    stats: MusiqueStats


@dataclass(frozen=True)
class _Passage:
    index: int
    title: str
    text: str
    entities: list[Any]
    triples: list[Any]


@dataclass
class _Fact:
    subject: str
    relation: str
    object: str
    predicate: str
    passages: list[int] = field(default_factory=list)


def musique_document(directory: Path, *, group: str) -> dict[str, Any]:
    """The graph document for the MuSiQue folder, ready for parse_graph_document(..., group=group)."""
    return build_musique(directory, group=group).document


def build_musique(directory: Path, *, group: str) -> MusiqueImport:
    """Read, check and map both files in one pass, so the command gets the document and its stats together."""
    group = _target_group(group)
    directory = Path(directory)
    corpus = read_list(directory, CORPUS_FILE)
    openie = read_list(directory, OPENIE_FILE)
    passages = _parse_passages(corpus, openie)
    return _Builder(group).build(passages)


class _Target(RequestModel):
    group: GroupName


def _target_group(group: Any) -> str:
    """The group the passages load into, by the one rule every group name follows."""
    try:
        return input_parse(_Target, {"group": group}).group
    except InvalidInput as error:
        raise InvalidGraphDocument(error.problems) from None


def read_list(directory: Path, name: str) -> list[Any]:
    """A dataset file that must hold a JSON list; InvalidGraphDocument names the file and what is wrong with it."""
    path = directory / name
    if not path.exists():
        raise InvalidGraphDocument(f"{name}: not found in {directory}")
    data = json_decode(file_bytes(path, where=name, error=InvalidGraphDocument), where=name, error=InvalidGraphDocument)
    if not isinstance(data, list):
        raise InvalidGraphDocument(f"{name}: must be a JSON list, not {type(data).__name__}")
    return data


def _parse_passages(corpus: list[Any], openie: list[Any]) -> list[_Passage]:
    """Check both files' records up front and report every problem, so one run shows all of them."""
    problems: list[str] = []
    if len(corpus) != len(openie):
        raise InvalidGraphDocument(
            f"{OPENIE_FILE}: has {len(openie)} documents but {CORPUS_FILE} has {len(corpus)} passages;"
            f" document i must describe passage i"
        )
    passages = []
    for index, (raw_passage, raw_document) in enumerate(zip(corpus, openie, strict=True)):
        where_c = f"{CORPUS_FILE}[{index}]"
        where_o = f"{OPENIE_FILE}[{index}]"
        before = len(problems)
        passage = record_parse(CorpusPassage, raw_passage, where_c, problems)
        document = record_parse(OpenieDocument, raw_document, where_o, problems, index=index)
        if passage is not None and document is not None and document.title != passage.title:
            problems.append(
                f"{where_o}.title: {shown(document.title)} differs from {where_c}.title {shown(passage.title)}"
            )
        if len(problems) > MAX_PROBLEMS:
            break
        if len(problems) == before and passage is not None and document is not None:
            passages.append(
                _Passage(
                    index=index,
                    title=passage.title,
                    text=passage.text,
                    entities=document.extracted_entities,
                    triples=document.extracted_triples,
                )
            )
    if problems:
        raise InvalidGraphDocument(problems)
    return passages


def spelling(raw: str) -> str:
    """Whitespace is noise in LLM output; case is not (it is kept for the display name)."""
    return " ".join(raw.split())


def entity_key(name: str) -> str:
    """Spellings that differ only in case, width or spacing name the same entity."""
    return " ".join(_fold(name).split())


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def normalise_relation(predicate: str) -> str:
    """Relations compare as exact strings in the graph, so case and spacing must not split them."""
    return "_".join(predicate.lower().split())[:MAX_RELATION_LENGTH].strip("_") or "_"


def slug(text: str, max_length: int = MAX_TAG_LENGTH) -> str:
    """A tag-safe form of a title: lower case, runs of anything but letters and digits become one '_'."""
    return re.sub(r"[\W_]+", "_", _fold(text))[:max_length].strip("_")


def predicate_tags(predicate: str) -> list[str]:
    """The predicate's content words, so facts can be found by what they say rather than by their exact verb."""
    words = [word[:MAX_TAG_LENGTH] for word in WORD.findall(_fold(predicate))]
    content = [word for word in dict.fromkeys(words) if word not in PREDICATE_STOP_WORDS]
    return content[:MAX_TAGS_PER_FACT]


def is_date_like(name: str) -> bool:
    """'born on 3 May 1950' is temporal whatever the verb says; the object shows it."""
    words = WORD.findall(_fold(name))
    anchored = False
    for word in words:
        if word in MONTHS or word in DATE_ANCHORS or YEAR_WORD.fullmatch(word):
            anchored = True
        elif not (NUMBER_WORD.fullmatch(word) or word in DATE_WORDS):
            return False
    return anchored


def categorise(predicate: str, object_name: str) -> str:
    """A keyword rule: cheap, explainable and good enough to let queries filter by kind of relation."""
    if is_date_like(object_name):
        return "TEMPORAL"
    words = " ".join(WORD.findall(_fold(predicate)))
    padded = f" {words} "
    if words in SPATIAL_PREDICATES:
        return "SPATIAL"
    for category, phrases in CATEGORY_RULES:
        if any(f" {phrase} " in padded for phrase in phrases):
            return category
    return DEFAULT_CATEGORY


def fact_weight(passage_count: int) -> float:
    """Corroboration is the only confidence signal OpenIE gives us: more passages, more weight."""
    return min(MAX_WEIGHT, BASE_WEIGHT + CORROBORATION_STEP * (passage_count - 1))


def _well_formed(triple: Any) -> bool:
    return (
        isinstance(triple, list) and len(triple) == 3 and all(isinstance(part, str) and part.strip() for part in triple)
    )


class _Builder:
    """Accumulates entities, facts and mentions across passages, so duplicates merge before anything is emitted."""

    def __init__(self, group: str) -> None:
        self.group = group
        self.stats = MusiqueStats()
        self.spellings: dict[str, Counter[str]] = {}
        self.mentions: dict[int, dict[str, None]] = {}
        self.facts: dict[tuple[str, str, str], _Fact] = {}
        # Text no graph may hold (control characters, markup in a relation) is an error, not noise to skip.
        self.problems: list[str] = []

    def episode_id(self, index: int) -> str:
        return EPISODE_ID.format(group=self.group, index=index)

    def entity_id(self, key: str) -> str:
        digest = hashlib.sha1(key.encode(), usedforsecurity=False).hexdigest()[:16]
        return ENTITY_ID.format(group=self.group, digest=digest)

    def see_entity(self, passage: int, name: str) -> str:
        key = entity_key(name)
        self.spellings.setdefault(key, Counter())[name] += 1
        self.mentions[passage].setdefault(key, None)
        return key

    def add_passage(self, passage: _Passage) -> None:
        self.mentions[passage.index] = {}
        where = f"{OPENIE_FILE}[{passage.index}]"
        for position, raw in enumerate(passage.entities):
            name = spelling(raw) if isinstance(raw, str) else ""
            if name and (problem := text_problem(name, single_line=True)):
                self.problems.append(f"{where}.extracted_entities[{position}]: {problem}")
                continue
            if not name or len(name) > MAX_NAME_LENGTH:
                reason = f"not a name of 1 to {MAX_NAME_LENGTH} characters"
                self.stats.skip("skipped_entities", f"{where}.extracted_entities[{position}]", reason)
                continue
            self.see_entity(passage.index, name)
        for position, triple in enumerate(passage.triples):
            self.stats.triples_read += 1
            at = f"{where}.extracted_triples[{position}]"
            if not _well_formed(triple):
                self.stats.skip("skipped_malformed", at, "not a list of three non-empty strings")
                continue
            refused = [
                (part, problem) for part, text in enumerate(triple) if (problem := text_problem(text, single_line=True))
            ]
            refused += (
                [(1, problem)] if not refused and (problem := relation_problem(normalise_relation(triple[1]))) else []
            )
            if refused:
                self.problems.extend(f"{at}[{part}]: {problem}" for part, problem in refused)
                continue
            subject, predicate, obj = (spelling(part) for part in triple)
            if len(subject) > MAX_NAME_LENGTH or len(obj) > MAX_NAME_LENGTH:
                self.stats.skip("skipped_long_names", at, f"a name is longer than {MAX_NAME_LENGTH} characters")
                continue
            if entity_key(subject) == entity_key(obj):
                self.stats.skip("skipped_self_loops", at, "subject and object are the same entity")
                continue
            subject_key = self.see_entity(passage.index, subject)
            object_key = self.see_entity(passage.index, obj)
            relation = normalise_relation(predicate)
            fact = self.facts.setdefault(
                (subject_key, relation, object_key), _Fact(subject_key, relation, object_key, predicate)
            )
            if fact.passages:
                self.stats.duplicate_triples += 1
            if passage.index not in fact.passages:
                fact.passages.append(passage.index)

    def build(self, passages: list[_Passage]) -> MusiqueImport:
        for passage in passages:
            self.add_passage(passage)
            if len(self.problems) > MAX_PROBLEMS:
                break
        if self.problems:
            raise InvalidGraphDocument(self.problems)
        titles = {passage.index: passage.title for passage in passages}
        names = {key: max(counts, key=counts.__getitem__) for key, counts in self.spellings.items()}
        passage_counts: Counter[str] = Counter(key for keys in self.mentions.values() for key in keys)
        nodes: list[dict[str, Any]] = [
            {
                "id": self.episode_id(passage.index),
                "name": passage.title,
                "labels": ["Episode"],
                "content": passage.text,
                "source": "text",
                "source_description": f"MuSiQue passage {passage.index}",
                "properties": {"passage_index": passage.index},
            }
            for passage in passages
        ]
        nodes += [
            {
                "id": self.entity_id(key),
                "name": name,
                "labels": ["Entity"],
                "properties": {"passages": passage_counts[key]},
            }
            for key, name in names.items()
        ]
        edges = [self.edge(fact, names, titles) for fact in self.facts.values()]
        mentions = [
            {"episode": self.episode_id(index), "entity": self.entity_id(key)}
            for index, keys in self.mentions.items()
            for key in keys
        ]
        self.stats.episodes = len(passages)
        self.stats.entities = len(names)
        self.stats.facts = len(edges)
        self.stats.mentions = len(mentions)
        return MusiqueImport({"nodes": nodes, "edges": edges, "mentions": mentions}, self.stats)

    def edge(self, fact: _Fact, names: dict[str, str], titles: dict[int, str]) -> dict[str, Any]:
        subject, obj = names[fact.subject], names[fact.object]
        tags = predicate_tags(fact.predicate)
        for index in fact.passages:
            title_tag = slug(titles[index])
            if title_tag and title_tag not in tags:
                tags.append(title_tag)
        return {
            "source": self.entity_id(fact.subject),
            "target": self.entity_id(fact.object),
            "relation": fact.relation,
            "weight": fact_weight(len(fact.passages)),
            "tags": tags[:MAX_TAGS],
            "fact": f"{subject} {fact.predicate} {obj}",
            "category": categorise(fact.predicate, obj),
            "episodes": [self.episode_id(index) for index in fact.passages],
        }
