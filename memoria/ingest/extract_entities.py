"""Step 2: the entities an episode mentions, behind a Protocol so an LLM extractor can replace the offline one.

The offline extractor works without any network or model download: speakers of "Name: text" lines,
proper-noun spans, noun phrases between function words, and identifiers such as SKUs; dates and
quantities are found too, and kept out of entity names.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from memoria.graph import kinds
from memoria.ingest import text
from memoria.ingest.context import PriorEpisode
from memoria.ingest.temporal import DateMention, QuantityMention, dates_in, parse_timestamp, quantities_in

SPEAKER = "speaker"
PROPER = "proper"
PHRASE = "phrase"
IDENTIFIER = "identifier"
ENTITY_KINDS = (SPEAKER, PROPER, PHRASE, IDENTIFIER)

# How sure a span is an entity, by what found it; a repeated mention adds REPEAT_BONUS.
CONFIDENCE = {
    SPEAKER: 1.0,
    IDENTIFIER: 0.9,
    "proper_multi": 0.85,
    PROPER: 0.8,
    "proper_initial": 0.55,
    "phrase_multi": 0.6,
    PHRASE: 0.45,
    "addressee": 0.6,
}
REPEAT_BONUS = 0.05
MAX_PHRASE_WORDS = 4
CONNECTORS = frozenset({"of", "de", "del", "da", "van", "von", "la", "le", "du", "&"})
SELF_PRONOUNS = frozenset({"i", "i'm", "i've", "i'd", "i'll"})
# After these a word that may be a noun or a verb ("race", "plan") is a noun; "that" and "no" say too little.
NOUN_DETERMINERS = text.word_set("a an the my your his her our their its")
TITLES = text.word_set("dr mr mrs ms prof st")
# After these verbs an -ing word names an activity ("love painting", "go camping"); elsewhere it is a verb.
ACTIVITY_VERBS = text.word_set("love like enjoy hate prefer go start stop quit try keep miss practice practise begin")
NO_ACTIVITY = text.word_set("be have do go get make take come push")  # "keep going" is no activity


@dataclass(frozen=True)
class ExtractedEntity:
    """An entity as the episode names it; `key` (text.name_key) is what resolution compares first."""

    name: str
    key: str
    kind: str
    confidence: float
    labels: tuple[str, ...] = ()
    spans: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class EntityExtractionInput:
    content: str
    source: str
    reference_time: str
    context: tuple[PriorEpisode, ...] = ()


@dataclass(frozen=True)
class EntityExtraction:
    entities: tuple[ExtractedEntity, ...]
    sentences: tuple[text.Sentence, ...]
    dates: tuple[DateMention, ...] = ()
    quantities: tuple[QuantityMention, ...] = ()
    # Whom "you" means: the last other speaker in the context (message episodes only).
    addressee: str | None = None


class EntityExtractor(Protocol):
    def extract_entities(self, request: EntityExtractionInput) -> EntityExtraction: ...


@dataclass
class _Found:
    name: str
    kind: str
    confidence: float
    labels: tuple[str, ...]
    spans: list[tuple[int, int]] = field(default_factory=list)


def speakers_in(content: str) -> list[str]:
    return [match.group(1) for match in text.SPEAKER_LINE.finditer(content)]


def addressee_of(*, speakers: list[str], context: Iterable[PriorEpisode]) -> str | None:
    """The newest speaker in the context who is not speaking now."""
    own = {text.name_key(speaker) for speaker in speakers}
    for prior in context:
        if prior.source != "message":
            continue
        for speaker in reversed(speakers_in(prior.content)):
            if text.name_key(speaker) not in own:
                return speaker
    return None


def case_statistics(texts: Iterable[str]) -> tuple[Counter[str], Counter[str]]:
    """How often each word appears capitalised inside a sentence, and in lower case: tells names from words."""
    capitalised: Counter[str] = Counter()
    lower: Counter[str] = Counter()
    for passage in texts:
        passage_capitalised, passage_lower = _passage_case_counts(passage)
        capitalised.update(passage_capitalised)
        lower.update(passage_lower)
    return capitalised, lower


@functools.lru_cache(maxsize=4096)
def _passage_case_counts(passage: str) -> tuple[Counter[str], Counter[str]]:
    """One passage's counts, kept: each episode reads its context's passages again, which repeats most of them.
    Callers only read the counters (they are shared)."""
    capitalised: Counter[str] = Counter()
    lower: Counter[str] = Counter()
    for sentence in text.sentences_of(passage, speakers=True):
        for index, token in enumerate(text.tokens_of(sentence.text)):
            if not token.is_word or not token.text[0].isalpha():
                continue
            if token.is_capitalised:
                if index > 0:
                    capitalised[token.lower] += 1
            else:
                lower[token.lower] += 1
    return capitalised, lower


def entity_labels_for(name: str, kind: str) -> tuple[str, ...]:
    """Extra kind labels a name shows by itself: an event noun or a data-source noun as its head."""
    if kind in (SPEAKER, IDENTIFIER):
        return ()
    words = text.name_key(name).split()
    head = words[-1] if words else ""
    allowed = kinds.entity_labels()
    if head in text.EVENT_NOUNS and "Event" in allowed:
        return ("Event",)
    if head in text.DATA_SOURCE_NOUNS and "DataSource" in allowed:
        return ("DataSource",)
    return ()


class OfflineEntityExtractor:
    """Rules and case statistics; no model. Deterministic: the same input gives the same entities."""

    def extract_entities(self, request: EntityExtractionInput) -> EntityExtraction:
        content = request.content
        is_message = request.source == "message"
        sentences = text.sentences_of(content, speakers=is_message)
        dates = dates_in(content, reference=parse_timestamp(request.reference_time))
        quantities = quantities_in(content)
        blocked = [(mention.start, mention.end) for mention in (*dates, *quantities)]
        capitalised, lower = case_statistics([content, *(prior.content for prior in request.context)])
        found: dict[str, _Found] = {}
        speakers = speakers_in(content) if is_message else []
        for speaker in speakers:
            self._add(found, speaker, SPEAKER, CONFIDENCE[SPEAKER], None)
        for sentence in sentences:
            tokens = text.tokens_of(sentence.text, sentence.start)
            for chunk, confidence_key in _chunks(tokens, blocked, capitalised, lower):
                start, end = chunk[0].start, chunk[-1].end
                if chunk[-1].lower.endswith("'s"):
                    end -= 2
                name = content[start:end]
                kind = confidence_key.split("_")[0]
                self._add(found, name, kind, CONFIDENCE[confidence_key], (start, end))
        addressee = addressee_of(speakers=speakers, context=request.context) if is_message else None
        if addressee and _mentions_second_person(sentences):
            self._add(found, addressee, SPEAKER, CONFIDENCE["addressee"], None)
        entities = tuple(
            ExtractedEntity(
                name=item.name,
                key=key,
                kind=item.kind,
                confidence=round(min(1.0, item.confidence + REPEAT_BONUS * max(0, len(item.spans) - 1)), 3),
                labels=item.labels,
                spans=tuple(item.spans),
            )
            for key, item in found.items()
        )
        return EntityExtraction(entities, tuple(sentences), tuple(dates), tuple(quantities), addressee)

    @staticmethod
    def _add(found: dict[str, _Found], name: str, kind: str, confidence: float, span: tuple[int, int] | None) -> None:
        key = text.name_key(name)
        if not key:
            return
        item = found.get(key)
        if item is None:
            item = found[key] = _Found(name, kind, confidence, entity_labels_for(name, kind))
        elif confidence > item.confidence:
            item.name, item.kind, item.confidence = name, kind, confidence
        if span is not None:
            item.spans.append(span)


def _mentions_second_person(sentences: Iterable[text.Sentence]) -> bool:
    return any(token.lower in text.SECOND_PERSON for s in sentences for token in text.tokens_of(s.text))


def _is_identifier(token: text.Token) -> bool:
    return bool(text.IDENTIFIER.match(token.text)) and not re.fullmatch(
        r"\d+(?:st|nd|rd|th|s|am|pm|k|m)?", token.text, re.IGNORECASE
    )


def _chunks(
    tokens: list[text.Token], blocked: list[tuple[int, int]], capitalised: Counter[str], lower: Counter[str]
) -> Iterable[tuple[list[text.Token], str]]:
    """Runs of content words, split at function words, verbs, punctuation, dates and quantities.

    Yields each run with the confidence key that says how it was recognised.
    """
    run: list[text.Token] = []
    start_kind = PROPER  # how the run's first word was read: a name, a name only by position, or a common word

    def flush() -> Iterable[tuple[list[text.Token], str]]:
        nonlocal run
        if run:
            yield from _classify(run, start_kind)
        run = []

    for index, token in enumerate(tokens):
        previous = tokens[index - 1] if index else None
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        phrase_open = bool(run) and not run[-1].is_capitalised
        role = _role(token, previous, following, index == 0, bool(run), phrase_open, blocked, capitalised, lower)
        if role == "connector":
            run.append(token)
            continue
        if role == "boundary":
            yield from flush()
            continue
        if run and _case_turns(run[-1], token):
            yield from flush()
        if not run:
            start_kind = {"content": PROPER, "initial": "proper_initial", "common": PHRASE}[role]
        run.append(token)
        if token.lower.endswith("'s"):  # a possessive ends a name: "Caroline's painting" is two entities
            yield from flush()
    yield from flush()


def _case_turns(last: text.Token, token: text.Token) -> bool:
    # "my sister Anna": a lower-case word followed by a capitalised one starts a new name.
    joined = last.lower in CONNECTORS or last.text == "."
    return not joined and not last.is_capitalised and token.is_capitalised and not _is_identifier(token)


def _role(
    token: text.Token,
    previous: text.Token | None,
    following: text.Token | None,
    initial: bool,
    in_run: bool,
    phrase_open: bool,
    blocked: list[tuple[int, int]],
    capitalised: Counter[str],
    lower: Counter[str],
) -> str:
    """How one token takes part in a name: content, content only by position, a common word, a connector, or not."""
    if token.text == "." and previous and previous.lower in TITLES and following and following.is_capitalised:
        return "connector"  # "Dr. Jane Goodall"
    if not token.is_word or any(token.start < end and start < token.end for start, end in blocked):
        return "boundary"
    word = token.lower
    if _is_identifier(token):
        return "content"
    if token.text[0].isdigit():
        return "boundary"
    if token.is_capitalised and not initial:
        if word in SELF_PRONOUNS:
            return "boundary"
        if text.is_function_word(word) and not (following and following.is_capitalised and in_run):
            return "boundary"
        return "content"
    if (
        word in CONNECTORS
        and in_run
        and previous
        and previous.is_capitalised
        and following
        and following.is_capitalised
    ):
        return "connector"
    if initial and token.is_capitalised:
        if text.is_function_word(word) or text.verb_lemma(word):
            return "boundary"
        if capitalised[word] > 0 or (following and following.is_capitalised and following.text.isalpha()):
            return "content"
        if lower[word] == 0 and not word.endswith(("ing", "ed", "ly")):
            return "initial"
    role = _lowercase_role(word, previous, phrase_open)
    return "common" if role == "content" and token.is_capitalised else role


def _lowercase_role(word: str, previous: text.Token | None, phrase_open: bool) -> str:
    if text.is_function_word(word):
        return "boundary"
    lemma = text.verb_lemma(word)
    if lemma is None:
        return "content"
    before = previous.lower if previous else ""
    after_determiner = before in NOUN_DETERMINERS or before.endswith("'s")
    if word.endswith("ing") and word != lemma:
        # "love painting", "my painting": an activity, a noun; "I'm painting", "spending time": a verb.
        noun = after_determiner or phrase_open or text.verb_lemma(before) in ACTIVITY_VERBS
        return "content" if noun and lemma not in NO_ACTIVITY else "boundary"
    if word.endswith("ed") or lemma != word.rstrip("s"):
        return "boundary"
    # Words that are nouns and verbs ("race", "plan"): nouns inside a phrase or after a determiner.
    return "content" if phrase_open or after_determiner else "boundary"


def _classify(run: list[text.Token], start_kind: str) -> Iterable[tuple[list[text.Token], str]]:
    while run and run[-1].lower in CONNECTORS:
        run = run[:-1]
    if not run:
        return
    if len(run) == 1 and _is_identifier(run[0]):
        yield run, IDENTIFIER
        return
    if start_kind != PHRASE and run[0].is_capitalised:
        yield run, "proper_multi" if len(run) > 1 else start_kind
        return
    run = run[-MAX_PHRASE_WORDS:]
    if len(run) > 1:
        yield run, "phrase_multi"
    elif _names_a_thing(run[0].lower.removesuffix("'s")):
        yield run, PHRASE


def _names_a_thing(word: str) -> bool:
    return text.looks_like_noun(word) and text.singular(word) not in text.ABSTRACT_NOUNS
