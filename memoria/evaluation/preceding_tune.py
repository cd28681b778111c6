"""How many preceding messages a message is searched with: chosen by cross-validation on LoCoMo.

Each candidate count n rebuilds, per conversation, the episodes view's BM25 index the way the view builds it
(memoria.readmodel: TextIndex over name and content, a message's `preceding_text` of n messages in front of
its content, the same analyzer and query terms) and fuses it with exact cosine over the turns' stored-text
vectors by the episodes recipe's RRF (METHOD_DEPTH × limit from each method, Graphiti's rank constant). Nothing
is written to the graph: the count changes only what the view indexes, so the grid runs in memory in minutes.

Two protocols, both printed: k-fold over questions (the project's, memoria.evaluation.folds) and leave one
conversation out, since turns of one conversation are alike and the questions kept out of this repository are
other conversations.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from memoria.evaluation.crossval import Difference, paired_bootstrap
from memoria.evaluation.dense import DenseIndex, Embed
from memoria.evaluation.folds import RowFolds, row_folds
from memoria.evaluation.locomo import ADVERSARIAL, REPORT_ROWS, LocomoConversation
from memoria.evaluation.recall import RecallTable
from memoria.graph.searchable import node_text, with_preceding
from memoria.ingest.context import PriorEpisode
from memoria.ingest.preceding import preceding_text
from memoria.readmodel.scopes import EPISODES
from memoria.readmodel.text_index import TextIndex, query_terms
from memoria.search.methods import MAX_QUERY_WORDS, STOP_WORDS
from memoria.search.rerankers import rrf
from memoria.search.service import METHOD_DEPTH

COUNTS = (0, 1, 2, 3)  # 0 first: a tie keeps the simplest
BASELINE = "dense"
SCORED_ROW = next(row for row in REPORT_ROWS if row.title == f"all but {ADVERSARIAL}")  # categories 1–4


def candidate(count: int) -> str:
    return f"{count} preceding"


@dataclass(frozen=True)
class ConversationChoice:
    conversation: str
    chosen: str
    held_out: float  # recall of the chosen count on the left-out conversation's questions
    dense: float
    questions: int


@dataclass
class PrecedingTuning:
    table: RecallTable
    folds: RowFolds | None
    by_conversation: dict[int, list[ConversationChoice]]  # per k
    held_out_versus_dense: dict[int, Difference | None]
    seconds: float


def bm25_index(conversation: LocomoConversation, count: int) -> TextIndex:
    index = TextIndex(EPISODES.text_fields)
    context: list[PriorEpisode] = []  # newest first, as the pipeline reads it
    for episode in conversation.episodes:
        before = preceding_text(source=episode.source, context=context, count=count)
        content = with_preceding(episode.content, before)
        index.put([(episode.id or "", {"name": episode.name or "", "content": content})])
        context.insert(0, PriorEpisode(episode.id or "", episode.name or "", episode.content, episode.source, ""))
    index.commit()
    return index


def preceding_tune(
    conversations: Sequence[LocomoConversation], *, embed: Embed, ks: tuple[int, ...], counts: Sequence[int] = COUNTS
) -> PrecedingTuning:
    """Score dense and every count on every question, then choose the count by both protocols at each k."""
    started = time.perf_counter()
    depth = max(ks)
    table = RecallTable(ks=ks, methods=(BASELINE, *(candidate(n) for n in counts)))
    for conversation in conversations:
        episodes = conversation.episodes
        ids = [episode.id or "" for episode in episodes]
        dense = DenseIndex.build(ids=ids, texts=[episode.content for episode in episodes], embed=embed)
        stored = DenseIndex.build(  # what the view's cosine compares with: the episode's name and content
            ids=ids,
            texts=[node_text(is_episode=True, name=e.name, content=e.content) for e in episodes],
            embed=embed,
        )
        indexes = {n: bm25_index(conversation, n) for n in counts}
        vectors = embed([question.text for question in conversation.questions])
        for question, vector in zip(conversation.questions, vectors, strict=True):
            asked = {"key": question.key, "label": question.label, "relevant": question.relevant, "seconds": 0.0}
            table.record(method=BASELINE, retrieved=dense.rank(vector, depth), **asked)
            cosine = stored.rank(vector, METHOD_DEPTH * depth)
            terms = query_terms(question.text, stop_words=STOP_WORDS, max_terms=MAX_QUERY_WORDS)
            for n, index in indexes.items():
                bm25 = [key for key, _ in index.search(terms, limit=METHOD_DEPTH * depth)]
                fused = [item for item, _ in rrf([bm25, cosine])][:depth]
                table.record(method=candidate(n), retrieved=fused, **asked)
    names = [candidate(n) for n in counts]
    folds = row_folds(table, SCORED_ROW, baseline=BASELINE, candidates=names)
    by_conversation, versus = {}, {}
    for k in ks:
        by_conversation[k], versus[k] = _leave_one_conversation_out(table, conversations, names, k=k)
    return PrecedingTuning(table, folds, by_conversation, versus, time.perf_counter() - started)


def _leave_one_conversation_out(
    table: RecallTable, conversations: Sequence[LocomoConversation], names: Sequence[str], *, k: int
) -> tuple[list[ConversationChoice], Difference | None]:
    keys, dense = table.column(BASELINE, SCORED_ROW.labels, k)
    if not keys:
        return [], None
    scores = np.asarray([table.column(name, SCORED_ROW.labels, k)[1] for name in names])
    owner = {question.key: conversation.name for conversation in conversations for question in conversation.questions}
    of = np.asarray([owner[key] for key in keys])
    held_out = np.empty(len(keys))
    choices = []
    for conversation in conversations:
        test = of == conversation.name
        if not test.any() or test.all():
            continue
        best = int(np.argmax(scores[:, ~test].mean(axis=1)))  # the first of equal maxima
        held_out[test] = scores[best, test]
        choices.append(
            ConversationChoice(
                conversation.name,
                names[best],
                float(scores[best, test].mean()),
                float(np.mean(np.asarray(dense)[test])),
                int(test.sum()),
            )
        )
    if len(choices) < 2:
        return choices, None
    return choices, paired_bootstrap(list(held_out), dense)
