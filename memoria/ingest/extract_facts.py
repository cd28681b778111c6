"""Step 4: facts between an episode's entities, behind a Protocol so an LLM extractor can replace the offline one.

The offline extractor reads each clause as subject, verb, objects: the relation is the verb's lemma
with the preposition before the object ("went to" → go_to), its category comes from keyword rules,
its validity from a date in the sentence, and its weight from how the pattern was found.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from memoria.graph import kinds
from memoria.graph.rules import MAX_RELATION_LENGTH, MAX_TAGS_PER_FACT, MAX_WEIGHT, MIN_WEIGHT, normalise_tag
from memoria.ingest import text
from memoria.ingest.extract_entities import EntityExtraction, ExtractedEntity

HIERARCHICAL, TEMPORAL, SPATIAL, CAUSALITY, ATTRIBUTION = kinds.RELATION_CATEGORIES
# Keyword rules, tried in this order on a relation's words; a relation with none of them is an ATTRIBUTION.
CATEGORY_KEYWORDS: tuple[tuple[str, frozenset[str]], ...] = (
    (CAUSALITY, text.word_set("cause because due lead result trigger prevent affect inspire motivate encourage delay")),
    (HIERARCHICAL, text.word_set("is_a part member belong contain include consist type kind manage report subsidiary")),
    (TEMPORAL, text.word_set("before after during since until start begin end finish schedule postpone follow")),
    (
        SPATIAL,
        text.word_set(
            "live locate located base move relocate reside travel visit go come ship fly drive ride near inside "
            "outside arrive return"
        ),
    ),
)
NEGATED_PREFIX = "not_"
CO_OCCURRENCE = "mentioned_with"
# A preposition with no verb before it still relates two neighbouring entities.
PREPOSITION_RELATIONS = {
    "in": "located_in",
    "at": "located_at",
    "near": "near",
    "on": "on",
    "from": "from",
    "of": "part_of",
    "with": "with",
    "for": "for",
    "by": "by",
}
# After an object, these prepositions attach the next entity to that object ("the workshop at the centre");
# the others attach it to the clause's subject and verb ("went to the group with Mel" → go_with).
ATTACHING_PREPOSITIONS = text.word_set("in at near on from of inside outside")
CLAUSE_WORDS = text.word_set("but because although though whereas which who so while")
CLAUSE_MARKS = frozenset(";:—–()")
SUBJECT_PRONOUNS = text.word_set("i we you he she they i'm we're you're he's she's they're i've we've you've")
THIRD_PERSON = text.word_set("he she they he's she's they're")
POSSESSIVES = text.word_set("my our your")
MODIFIERS = text.DETERMINERS | text.word_set("very really so just also new old own first last")

# Weights by how the fact was found (docs/ingestion.md), before the entities' own confidence counts.
PATTERN_WEIGHTS = {
    "verb": 0.75,
    "passive": 0.75,
    "possessive": 0.55,
    "preposition": 0.5,
    "implicit subject": 0.45,
    "co-occurrence": 0.3,
}
COREFERENCE_PENALTY = 0.1
SPECIFIC_BONUS = 0.05  # a date or a quantity in the clause


@dataclass(frozen=True)
class FactExtractionInput:
    content: str
    reference_time: str
    extraction: EntityExtraction


@dataclass(frozen=True)
class ExtractedFact:
    """A fact between two extracted entities, named by their keys (resolution maps keys to ids)."""

    source: str
    target: str
    relation: str
    category: str
    fact: str
    valid_at: str
    weight: float
    tags: tuple[str, ...] = ()
    negated: bool = False

    @property
    def stored_relation(self) -> str:
        return (NEGATED_PREFIX + self.relation if self.negated else self.relation)[:MAX_RELATION_LENGTH]


@dataclass(frozen=True)
class FactExtraction:
    facts: tuple[ExtractedFact, ...]


class FactExtractor(Protocol):
    def extract_facts(self, request: FactExtractionInput) -> FactExtraction: ...


@dataclass
class _Anchor:
    """An entity's place in a sentence, by token positions; pronouns stand for speakers."""

    start: int
    end: int
    key: str
    possessive: bool = False
    pronoun: bool = False
    coreferent: bool = False


@dataclass
class _Clause:
    tokens: list[text.Token]
    start: int
    end: int
    anchors: list[_Anchor] = field(default_factory=list)

    def text_of(self, content: str) -> str:
        return content[self.tokens[self.start].start : self.tokens[self.end - 1].end].strip(" ,;:—–-")


def category_for(words: Sequence[str]) -> str:
    """The category of a relation from the words that name it."""
    joined = "_".join(words)
    parts = set(joined.split("_")) | {joined}
    for category, keywords in CATEGORY_KEYWORDS:
        if parts & keywords:
            return category
    return ATTRIBUTION


def relation_weight(pattern: str, *, confidences: Sequence[float], coreferent: bool, specific: bool) -> float:
    """Extraction confidence on [0.25, 1]: the pattern's weight, scaled by how sure the two entities are."""
    weight = PATTERN_WEIGHTS[pattern] * (0.5 + 0.5 * min(confidences, default=1.0))
    weight += SPECIFIC_BONUS if specific else 0.0
    weight -= COREFERENCE_PENALTY if coreferent else 0.0
    return round(min(MAX_WEIGHT, max(MIN_WEIGHT, weight)), 3)


def fact_tags(words: Sequence[str]) -> tuple[str, ...]:
    tags: list[str] = []
    for word in words:
        tag = normalise_tag(word)
        if tag and len(tag) <= 64 and tag not in tags:
            tags.append(tag)
    return tuple(tags[:MAX_TAGS_PER_FACT])


class OfflineFactExtractor:
    """Sentence patterns over the extracted entities; no model."""

    def extract_facts(self, request: FactExtractionInput) -> FactExtraction:
        extraction = request.extraction
        entities = {entity.key: entity for entity in extraction.entities}
        facts: dict[tuple[str, str, str], ExtractedFact] = {}
        last_subject: str | None = None
        for sentence in extraction.sentences:
            tokens = text.tokens_of(sentence.text, sentence.start)
            if not tokens:
                continue
            speaker = text.name_key(sentence.speaker) if sentence.speaker else None
            addressee = text.name_key(extraction.addressee) if extraction.addressee else None
            anchors = _anchors(
                tokens,
                extraction.entities,
                speaker if speaker in entities else None,
                addressee if addressee in entities else None,
            )
            for clause in _clauses(tokens, anchors):
                _resolve_third_person(clause, last_subject)
                found, subject = _clause_facts(clause, speaker if speaker in entities else None)
                if subject and not _is_pronoun_subject(clause, subject):
                    last_subject = subject
                for source, target, pattern, words, negated, coreferent in found:
                    if source == target:
                        continue
                    fact = self._fact(
                        request, entities, clause, sentence, source, target, pattern, words, negated, coreferent
                    )
                    key = (fact.source, fact.stored_relation, fact.target)
                    if key not in facts or facts[key].weight < fact.weight:
                        facts[key] = fact
        return FactExtraction(tuple(facts.values()))

    @staticmethod
    def _fact(
        request: FactExtractionInput,
        entities: dict[str, ExtractedEntity],
        clause: _Clause,
        sentence: text.Sentence,
        source: str,
        target: str,
        pattern: str,
        words: list[str],
        negated: bool,
        coreferent: bool,
    ) -> ExtractedFact:
        extraction = request.extraction
        span = (clause.tokens[clause.start].start, clause.tokens[clause.end - 1].end)
        dates = [d for d in extraction.dates if span[0] <= d.start < span[1]] or [
            d for d in extraction.dates if sentence.start <= d.start < sentence.end
        ]
        specific = bool(dates) or any(span[0] <= q.start < span[1] for q in extraction.quantities)
        clause_text = clause.text_of(request.content)
        uses_person = pattern == "implicit subject" or any(anchor.pronoun for anchor in clause.anchors)
        fact_text = f"{sentence.speaker}: {clause_text}" if sentence.speaker and uses_person else clause_text
        if pattern == "co-occurrence":
            source, target = sorted((source, target))  # symmetric: one direction only
        relation = text.snake_case(words)[:MAX_RELATION_LENGTH] or CO_OCCURRENCE
        keywords = [word for word in relation.split("_") if word not in text.PREPOSITIONS]
        keywords += [*entities[source].key.split(), *entities[target].key.split()]
        keywords += [
            text.singular(t.lower)
            for t in clause.tokens[clause.start : clause.end]
            if text.looks_like_noun(t.lower) and not text.is_verb(t.lower)
        ]
        return ExtractedFact(
            source=source,
            target=target,
            relation=relation,
            category=category_for(words),
            fact=fact_text,
            valid_at=dates[0].value if dates else request.reference_time,
            weight=relation_weight(
                pattern,
                confidences=(entities[source].confidence, entities[target].confidence),
                coreferent=coreferent,
                specific=specific,
            ),
            tags=fact_tags([word for word in keywords if len(word) >= 3 and word not in text.STOPWORDS]),
            negated=negated,
        )


def _anchors(
    tokens: list[text.Token], entities: Sequence[ExtractedEntity], speaker: str | None, addressee: str | None
) -> list[_Anchor]:
    index_at = {token.start: index for index, token in enumerate(tokens)}
    end_at = {token.end: index for index, token in enumerate(tokens)}
    anchors: list[_Anchor] = []
    taken: set[int] = set()
    for entity in entities:
        for start, end in entity.spans:
            first = index_at.get(start)
            last = end_at.get(end, end_at.get(end + 2))  # a possessive's span stops before its 's
            if first is None or last is None:
                continue
            possessive = tokens[last].lower.endswith("'s")
            anchors.append(_Anchor(first, last + 1, entity.key, possessive=possessive))
            taken.update(range(first, last + 1))
    for index, token in enumerate(tokens):
        if index in taken:
            continue
        word = token.lower
        person = speaker if word in text.FIRST_PERSON else addressee if word in text.SECOND_PERSON else None
        if person:
            anchors.append(_Anchor(index, index + 1, person, possessive=word in POSSESSIVES, pronoun=True))
        elif word in THIRD_PERSON:
            anchors.append(_Anchor(index, index + 1, "", pronoun=True, coreferent=True))
    return sorted(anchors, key=lambda anchor: anchor.start)


def _clauses(tokens: list[text.Token], anchors: list[_Anchor]) -> list[_Clause]:
    cuts = [0]
    for index, token in enumerate(tokens[:-1]):
        following = tokens[index + 1].lower
        if (
            token.text in CLAUSE_MARKS
            or token.lower in CLAUSE_WORDS
            or (token.text == "," and (following in SUBJECT_PRONOUNS or following in ("and", "but", "so")))
            or (token.lower == "and" and following in SUBJECT_PRONOUNS)
        ):
            cuts.append(index + 1)
    cuts.append(len(tokens))
    clauses = []
    for start, end in itertools.pairwise(cuts):
        if end > start:
            clause = _Clause(tokens, start, end)
            clause.anchors = [anchor for anchor in anchors if start <= anchor.start and anchor.end <= end]
            clauses.append(clause)
    return clauses


def _resolve_third_person(clause: _Clause, last_subject: str | None) -> None:
    """ "She" at the start of a clause is the previous clause's named subject: the one coreference rule."""
    for anchor in clause.anchors:
        if anchor.coreferent and not anchor.key and anchor.start == clause.start and last_subject:
            anchor.key = last_subject
    clause.anchors = [anchor for anchor in clause.anchors if anchor.key]


def _is_pronoun_subject(clause: _Clause, subject: str) -> bool:
    return any(anchor.key == subject and anchor.pronoun for anchor in clause.anchors)


def _verb_at(tokens: list[text.Token], start: int, end: int) -> tuple[int | None, bool]:
    """The last main verb between two positions (the one nearest the object), and whether it is a passive.

    "thinking about going camping with my kids" relates the speaker and the kids by "going"; an auxiliary
    (be, have, do) counts only when no main verb follows it.
    """
    auxiliary: int | None = None
    main: int | None = None
    for index in range(start, end):
        lemma = text.verb_lemma(tokens[index].text)
        if lemma is None or tokens[index].lower in text.PREPOSITIONS:
            continue
        if lemma in ("be", "have", "do"):
            auxiliary = index if main is None else auxiliary
        else:
            main = index
    if main is None:
        return auxiliary, False
    passive = (
        auxiliary is not None
        and auxiliary < main
        and text.verb_lemma(tokens[auxiliary].text) == "be"
        and tokens[main].lower.endswith(("ed", "en", "wn"))
        and any(token.lower == "by" for token in tokens[main + 1 : end])
    )
    return main, passive


def _preposition_before(tokens: list[text.Token], start: int, position: int) -> str | None:
    """The preposition that governs the word at `position`, looking back over determiners and modifiers."""
    for index in range(position - 1, start - 1, -1):
        word = tokens[index].lower
        if word in text.PREPOSITIONS:
            return word
        if word not in MODIFIERS and not (tokens[index].text[0].isdigit() or word in ("of",)):
            return None
    return None


def _negated(tokens: list[text.Token], start: int, end: int) -> bool:
    words = [token.lower for token in tokens[start:end]]
    joined = " ".join(words)
    return any(word in text.NEGATIONS or word.endswith("n't") for word in words) or "no longer" in joined


def _clause_facts(clause: _Clause, speaker: str | None) -> tuple[list[tuple], str | None]:
    """(source, target, pattern, relation words, negated, coreferent) for each fact of one clause."""
    tokens, anchors = clause.tokens, clause.anchors
    found: list[tuple] = []
    consumed: set[int] = set()
    for position, anchor in enumerate(anchors):
        if not anchor.possessive or position + 1 >= len(anchors):
            continue
        owned = anchors[position + 1]
        between = tokens[anchor.end : owned.start]
        if len(between) > 3 or any(not token.is_word or text.is_verb(token.text) for token in between):
            continue
        found.append((anchor.key, owned.key, "possessive", ["has"], False, anchor.coreferent))
        consumed.add(position)
        following = anchors[position + 2] if position + 2 < len(anchors) else None
        if following and following.start == owned.end and not following.pronoun:
            # "my sister Anna": Anna is the sister; the owner has_sister Anna, and Anna carries the clause.
            head = owned.key.split()[-1]
            found.append((anchor.key, following.key, "possessive", ["has", head], False, anchor.coreferent))
            consumed.add(position + 1)
    candidates = [(pos, anchor) for pos, anchor in enumerate(anchors) if pos not in consumed]
    verb, _ = _verb_at(tokens, clause.start, clause.end)
    subject: _Anchor | None = None
    if candidates and (verb is None or candidates[0][1].start <= verb):  # "I'm" is a subject holding its verb
        subject = candidates[0][1]
        objects = [anchor for _, anchor in candidates[1:]]
    else:
        objects = [anchor for _, anchor in candidates]
    implicit = subject is None and speaker is not None and verb is not None and verb == clause.start
    if implicit:
        subject = _Anchor(clause.start, clause.start, speaker, pronoun=True)
    if subject is None:
        return found, None
    objects = [anchor for anchor in objects if anchor.key != subject.key]
    previous: _Anchor | None = None
    for target in objects:
        # A contracted subject ("I'm") carries its own verb.
        verb, passive = _verb_at(tokens, subject.start if subject.pronoun else subject.end, target.start)
        preposition = _preposition_before(tokens, (previous or subject).end, target.start)
        negated = _negated(tokens, subject.end, target.start)
        coreferent = subject.coreferent or target.coreferent
        if previous is not None and preposition in ATTACHING_PREPOSITIONS and not _has_verb(tokens, previous, target):
            words = [PREPOSITION_RELATIONS.get(preposition, preposition)]
            found.append((previous.key, target.key, "preposition", words, negated, coreferent))
        elif verb is not None:
            words = _verb_words(tokens, verb, target.start, preposition)
            pattern = "implicit subject" if implicit else "verb"
            if passive and preposition == "by":
                found.append((target.key, subject.key, "passive", words[:1], negated, coreferent))
            else:
                found.append((subject.key, target.key, pattern, words, negated, coreferent))
        elif preposition and target.start - subject.end <= 3:
            words = [PREPOSITION_RELATIONS.get(preposition, preposition)]
            found.append((subject.key, target.key, "preposition", words, negated, coreferent))
        elif not subject.pronoun and not target.pronoun:
            found.append((subject.key, target.key, "co-occurrence", [CO_OCCURRENCE], False, coreferent))
        previous = target
    return found, subject.key


def _has_verb(tokens: list[text.Token], left: _Anchor, right: _Anchor) -> bool:
    return any(text.is_verb(token.text) for token in tokens[left.end : right.start])


def _verb_words(tokens: list[text.Token], verb: int, target: int, preposition: str | None) -> list[str]:
    """The verb's lemma, any content word between it and the object ("proud"), and the governing preposition."""
    lemma = text.verb_lemma(tokens[verb].text) or tokens[verb].lower
    words = [] if lemma in ("be", "have") else [lemma]
    for token in tokens[verb + 1 : target]:
        word = token.lower
        if word in MODIFIERS:
            continue
        if word in text.PREPOSITIONS or not token.is_word or word[0].isdigit():
            break
        if text.looks_like_noun(word) or word in text.COMMON_ADJECTIVES or word.endswith(text.ADJECTIVE_SUFFIXES):
            words.append(text.verb_lemma(word) or word)
        if len(words) >= 3:
            break
    if lemma == "be" and not words:
        if preposition in (None, "of"):
            return ["is_a"] if preposition is None else ["part_of"]
        return [PREPOSITION_RELATIONS.get(preposition, preposition)]
    if lemma == "have" and not words:
        words = ["has"]
    if preposition and (preposition != "of" or _of_follows(tokens, target, words)):
        words.append(preposition)
    return words


def _of_follows(tokens: list[text.Token], target: int, words: list[str]) -> bool:
    """ "proud of you" keeps its "of"; "500 units of SKU-1" does not: the "of" belongs to the units."""
    for index in range(target - 1, 0, -1):
        if tokens[index].lower == "of":
            return tokens[index - 1].lower in words
    return False
