"""Step 6: each touched entity's summary, kept offline and extractive: the latest sentences that speak of it.

An LLM would rewrite the summary; here the sentences are kept as written, newest last, within a
length budget, so a summary always says where its words came from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memoria.ingest import text

MAX_SUMMARY_CHARS = 600


@dataclass(frozen=True)
class SummaryInput:
    summary: str  # the entity's summary so far
    sentences: tuple[str, ...]  # what this episode says of it, in order


@dataclass(frozen=True)
class SummaryOutput:
    summary: str
    changed: bool


def summary_sentences(summary: str) -> list[str]:
    return [sentence.text for sentence in text.sentences_of(summary)]


def summary_update(*, request: SummaryInput, max_chars: int = MAX_SUMMARY_CHARS) -> SummaryOutput:
    """Append the new sentences not already there, then drop the oldest until the summary fits."""
    kept = summary_sentences(request.summary)
    seen = {text.fold(sentence) for sentence in kept}
    for sentence in request.sentences:
        folded = text.fold(sentence.strip())
        if folded and folded not in seen:
            kept.append(sentence.strip())
            seen.add(folded)
    while len(kept) > 1 and len(" ".join(kept)) > max_chars:
        kept.pop(0)
    summary = " ".join(kept)
    if len(summary) > max_chars:  # one sentence longer than the budget: cut at a word
        summary = summary[:max_chars].rsplit(" ", 1)[0] + "…"
    return SummaryOutput(summary, summary != request.summary)


def summary_fold(summary: str, sentence_groups: Sequence[Sequence[str]]) -> str:
    """The summary after each episode's sentences about the entity, in order: what a batch makes of `summary`.

    Planning folds the summary it read; the write folds the summary stored by then, which differs when another
    writer changed it meanwhile, so neither writer's sentences are lost."""
    for sentences in sentence_groups:
        summary = summary_update(request=SummaryInput(summary, tuple(sentences))).summary
    return summary


def sentences_about(
    *, sentences: Sequence[text.Sentence], spans: Sequence[tuple[int, int]], fact_texts: Sequence[str]
) -> tuple[str, ...]:
    """The sentences that name the entity, and the texts of the facts it takes part in, in order, once each."""
    found = [
        f"{sentence.speaker}: {sentence.text}" if sentence.speaker else sentence.text
        for sentence in sentences
        if any(sentence.start <= start < sentence.end for start, _ in spans)
    ]
    extra = [fact for fact in fact_texts if not any(fact in sentence for sentence in found)]
    return tuple(dict.fromkeys([*found, *extra]))
