"""How much of a question's evidence the context block carries, per budget of o200k_base tokens, beside the same
budget filled by dense top-k and by BM25 + dense RRF top-k (one line per turn or passage, the same packer and
tokenizer); and which episodes ranking a search of episodes should run by default, chosen by cross-validation over
LoCoMo and MuSiQue together (`evaluate context`, docs/evaluation.md).

Evidence present: an evidence episode whose own line (whole or cut to fit) is in the block. A fact drawn from it
does not count: the measure is the evidence itself, as the baselines show it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from memoria.context.lines import episode_line
from memoria.context.packing import Piece, pack
from memoria.context.service import EPISODES, context_candidates, context_pack, header_for
from memoria.evaluation.crossval import DEFAULT_FOLDS, SEED, Difference, fold_indexes, paired_bootstrap
from memoria.evaluation.dense import DenseIndex, Embed
from memoria.evaluation.memory import episode_search, hybrid_search
from memoria.evaluation.runner import Question, Retriever
from memoria.readmodel.scopes import EPISODES as EPISODE_SCOPE
from memoria.readmodel.text_index import TextIndex, query_terms
from memoria.search.methods import MAX_QUERY_WORDS, STOP_WORDS
from memoria.search.rerankers import rrf

BUDGETS = (250, 500, 1000, 2000)
BLOCK, DENSE, BM25_DENSE = "block", "dense", "bm25_dense"
METHODS = {
    BLOCK: "context block (get_context)",
    DENSE: "dense top-k in the budget",
    BM25_DENSE: "BM25 + dense RRF top-k in the budget",
}
# Enough ranked lines for the largest budget: a LoCoMo turn costs about 25 tokens.
BASELINE_DEPTH = 120
# The episodes rankings a search of episodes could run by default, the current default first (a tie keeps it),
# and the depth each dataset's recall is read at (LoCoMo R@10, MuSiQue R@5, as the issues set their targets).
RANKINGS = ("episodes_hybrid_graph_gated", "episodes_hybrid_rrf", "episodes_graph_fused", "hybrid")
RANKING_DEPTH = {"locomo": 10, "musique": 5}


@dataclass(frozen=True)
class Corpus:
    """One group's episodes as the baselines show them, and the questions asked of it."""

    dataset: str  # locomo | musique
    group: str
    ids: list[str]
    names: list[str]
    contents: list[str]
    times: list[str | None]
    dense_texts: list[str]  # what the dense baseline embeds: the evaluate commands' own texts
    questions: list[Question]


@dataclass
class Scores:
    """Per question (in the order asked): evidence share per method and budget, tokens and seconds of the block,
    and each candidate ranking's recall."""

    dataset: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    evidence: dict[tuple[str, int], list[float]] = field(default_factory=dict)
    tokens: dict[tuple[str, int], list[int]] = field(default_factory=dict)
    seconds: dict[tuple[str, int], list[float]] = field(default_factory=dict)
    rankings: dict[str, list[float]] = field(default_factory=dict)

    def add(self, table: dict, key: tuple[str, int] | str, value: float) -> None:
        table.setdefault(key, []).append(value)

    def of(self, dataset: str) -> list[int]:
        return [index for index, name in enumerate(self.dataset) if name == dataset]


def _share(shown: Sequence[str], relevant: frozenset[str]) -> float:
    return len(relevant & set(shown)) / len(relevant)


def filled(corpus: Corpus, ranked: Sequence[str], budget: int, lines: dict[str, str]) -> tuple[list[str], int]:
    """The ranked episodes packed into `budget` as the block packs its own (header, section, line, cut)."""
    pieces = [Piece(episode, EPISODES, lines[episode]) for episode in ranked]
    packed = pack(header=header_for(None), sections=(EPISODES,), pieces=pieces, budget=budget)
    return [piece.key for piece in packed.pieces], packed.used_tokens


def bm25_index(corpus: Corpus) -> TextIndex:
    """Each episode's name and content, as the episodes view indexes them, without a message's preceding ones."""
    index = TextIndex(EPISODE_SCOPE.text_fields)
    documents = zip(corpus.ids, corpus.names, corpus.contents, strict=True)
    index.put((key, {"name": name, "content": content}) for key, name, content in documents)
    index.commit()
    return index


def _ranking(name: str, group: str, depth: int) -> Retriever:
    if name == "hybrid":
        return hybrid_search(group=group, limit=depth)
    return episode_search(group=group, limit=depth, name=name)


def context_evaluate(
    corpora: Sequence[Corpus],
    *,
    embed: Embed,
    budgets: Sequence[int] = BUDGETS,
    progress: Callable[[Question], None] | None = None,
) -> Scores:
    scores = Scores()
    for corpus in corpora:
        lines = {
            key: episode_line(name, content, at, frozenset())
            for key, name, content, at in zip(corpus.ids, corpus.names, corpus.contents, corpus.times, strict=True)
        }
        dense = DenseIndex.build(ids=corpus.ids, texts=corpus.dense_texts, embed=embed)
        bm25 = bm25_index(corpus)
        depth = RANKING_DEPTH[corpus.dataset]
        rankings = {name: _ranking(name, corpus.group, depth) for name in RANKINGS}
        for question in corpus.questions:
            scores.dataset.append(corpus.dataset)
            scores.labels.append(question.label)
            started = time.perf_counter()
            dense_ranked = dense.rank(embed([question.text])[0], BASELINE_DEPTH)
            terms = query_terms(question.text, stop_words=STOP_WORDS, max_terms=MAX_QUERY_WORDS)
            bm25_ranked = [key for key, _ in bm25.search(terms, limit=BASELINE_DEPTH)] if terms else []
            fused = [key for key, _ in rrf([bm25_ranked, dense_ranked])][:BASELINE_DEPTH]
            baseline_seconds = time.perf_counter() - started
            started = time.perf_counter()
            candidates = context_candidates(group=corpus.group, query=question.text)
            searched = time.perf_counter() - started
            for budget in budgets:
                started = time.perf_counter()
                block = context_pack(candidates, budget)  # what context_build(budget) answers, candidates shared
                seconds = searched + time.perf_counter() - started
                scores.add(scores.evidence, (BLOCK, budget), _share(block.episode_ids, question.relevant))
                scores.add(scores.tokens, (BLOCK, budget), block.used_tokens)
                scores.add(scores.seconds, (BLOCK, budget), seconds)
                for method, ranked in ((DENSE, dense_ranked), (BM25_DENSE, fused)):
                    shown, used = filled(corpus, ranked, budget, lines)
                    scores.add(scores.evidence, (method, budget), _share(shown, question.relevant))
                    scores.add(scores.tokens, (method, budget), used)
                    scores.add(scores.seconds, (method, budget), baseline_seconds)
            scores.add(scores.rankings, DENSE, _share(dense_ranked[:depth], question.relevant))
            for name, retrieve in rankings.items():
                found = list(retrieve(question.text))[:depth]
                scores.add(scores.rankings, name, _share(found, question.relevant))
            if progress is not None:
                progress(question)
    return scores


@dataclass(frozen=True)
class Folded:
    """A method's figure on one dataset: per fold, the mean, and its difference to a reference with an interval."""

    folds: tuple[float, ...]
    mean: float
    versus: Difference | None


def fold_count(questions: int) -> int:
    """The project's five folds; with fewer questions, one a question (a single question is not folded)."""
    return min(DEFAULT_FOLDS, questions) if questions >= 2 else 0


def folded(values: Sequence[float], reference: Sequence[float] | None) -> Folded:
    folds = fold_count(len(values))
    parts = fold_indexes(len(values), folds=folds, seed=SEED) if folds else []
    array = np.asarray(values, dtype=float)
    versus = paired_bootstrap(values, reference) if reference is not None else None
    return Folded(tuple(float(array[part].mean()) for part in parts), float(array.mean()), versus)


@dataclass(frozen=True)
class RankingChoice:
    """The episodes ranking chosen on the training folds of both datasets at once, scored on the held-out fold of
    each: per fold the choice, and per dataset the held-out scores in question order."""

    chosen: tuple[str, ...]
    held_out: dict[str, list[float]]


def ranking_choose(scores: Scores) -> RankingChoice:
    """Rule: the ranking with the best mean over the two datasets of its training-fold gain over dense (each dataset
    weighs the same, whatever its question count); on a tie the one listed first (the current default)."""
    datasets = sorted(set(scores.dataset))
    positions = {dataset: scores.of(dataset) for dataset in datasets}
    folds = min(fold_count(len(where)) for where in positions.values())
    parts = {dataset: fold_indexes(len(positions[dataset]), folds=folds, seed=SEED) for dataset in datasets}
    held: dict[str, list[float]] = {dataset: [0.0] * len(positions[dataset]) for dataset in datasets}
    chosen = []
    for fold in range(folds):
        gains = []
        for name in RANKINGS:
            per_dataset = []
            for dataset in datasets:
                values = np.asarray([scores.rankings[name][p] for p in positions[dataset]])
                dense = np.asarray([scores.rankings[DENSE][p] for p in positions[dataset]])
                train = np.ones(len(values), dtype=bool)
                train[parts[dataset][fold]] = False
                per_dataset.append(float((values[train] - dense[train]).mean()))
            gains.append(float(np.mean(per_dataset)))
        best = RANKINGS[int(np.argmax(gains))]
        chosen.append(best)
        for dataset in datasets:
            for place in parts[dataset][fold]:
                held[dataset][place] = scores.rankings[best][positions[dataset][place]]
    return RankingChoice(tuple(chosen), held)


def _percentile(values: Sequence[float], share: float) -> float:
    return float(np.percentile(np.asarray(values, dtype=float), share)) * 1000


def _interval(versus: Difference | None) -> str:
    if versus is None or versus.low is None or versus.high is None:
        return "—"
    return f"{versus.mean:+.3f} [{versus.low:+.3f}, {versus.high:+.3f}]"


def report_lines(scores: Scores, *, budgets: Sequence[int] = BUDGETS) -> list[str]:
    """Markdown: per dataset and budget each method's share of evidence per fold, its mean, the block's difference
    to each baseline; tokens and latency; then the episodes rankings and the cross-validated choice among them."""
    out: list[str] = []
    for dataset in sorted(set(scores.dataset)):
        where = scores.of(dataset)
        out += [
            f"{dataset}: {len(where)} questions, share of each question's evidence in the block",
            "",
            "| budget | method | "
            + " | ".join(f"fold {n}" for n in range(1, DEFAULT_FOLDS + 1))
            + " | mean | block − it [95 %] | tokens mean | p50 ms | p95 ms |",
            "|---:|---|" + "---:|" * DEFAULT_FOLDS + "---:|---|---:|---:|---:|",
        ]
        for budget in budgets:
            block = [scores.evidence[(BLOCK, budget)][p] for p in where]
            for method, title in METHODS.items():
                values = [scores.evidence[(method, budget)][p] for p in where]
                found = folded(values, None if method == BLOCK else values)
                versus = "—" if method == BLOCK else _interval(paired_bootstrap(block, values))
                tokens = [scores.tokens[(method, budget)][p] for p in where]
                seconds = [scores.seconds[(method, budget)][p] for p in where]
                folds_text = "".join(f"{value:.3f} | " for value in found.folds)
                out.append(
                    f"| {budget} | {title} | {folds_text}{found.mean:.3f} | {versus} | {np.mean(tokens):.0f} | "
                    f"{_percentile(seconds, 50):.1f} | {_percentile(seconds, 95):.1f} |"
                )
        out.append("")
        depth = RANKING_DEPTH[dataset]
        dense = [scores.rankings[DENSE][p] for p in where]
        default = [scores.rankings[RANKINGS[0]][p] for p in where]
        out += [
            f"{dataset}: episodes rankings, recall@{depth}",
            "",
            "| ranking | "
            + " | ".join(f"fold {n}" for n in range(1, DEFAULT_FOLDS + 1))
            + f" | mean | − dense [95 %] | − {RANKINGS[0]} [95 %] |",
            "|---|" + "---:|" * DEFAULT_FOLDS + "---:|---|---|",
        ]
        for name in (DENSE, *RANKINGS):
            values = [scores.rankings[name][p] for p in where]
            found = folded(values, dense)
            versus_default = "—" if name == RANKINGS[0] else _interval(paired_bootstrap(values, default))
            out.append(
                f"| {name} | {''.join(f'{v:.3f} | ' for v in found.folds)}{found.mean:.3f} | "
                f"{'—' if name == DENSE else _interval(found.versus)} | {versus_default} |"
            )
        out.append("")
    if len(set(scores.dataset)) > 1 and min(len(scores.of(d)) for d in set(scores.dataset)) >= 2:
        choice = ranking_choose(scores)
        out.append(f"episodes ranking chosen per fold on both datasets' training folds: {', '.join(choice.chosen)}")
        for dataset, held in choice.held_out.items():
            where = scores.of(dataset)
            dense = [scores.rankings[DENSE][p] for p in where]
            default = [scores.rankings[RANKINGS[0]][p] for p in where]
            found = folded(held, dense)
            out.append(
                f"  {dataset} held out recall@{RANKING_DEPTH[dataset]}: folds "
                f"{', '.join(f'{v:.3f}' for v in found.folds)}, mean {found.mean:.3f}, − dense "
                f"{_interval(found.versus)}, − {RANKINGS[0]} {_interval(paired_bootstrap(held, default))}"
            )
    return out


def report_json(scores: Scores) -> dict:
    """Every question's figures, so another choice can be read off them without running again."""
    return {
        "datasets": scores.dataset,
        "labels": scores.labels,
        "evidence": {f"{method}@{budget}": values for (method, budget), values in scores.evidence.items()},
        "tokens": {f"{method}@{budget}": values for (method, budget), values in scores.tokens.items()},
        "seconds": {f"{method}@{budget}": values for (method, budget), values in scores.seconds.items()},
        "rankings": scores.rankings,
    }


def scores_read(figures: Sequence[dict]) -> Scores:
    """Scores from one or more `report_json` answers, their questions one after the other: runs of each dataset
    apart can be reported, and the ranking chosen, together."""
    merged = Scores()
    for answer in figures:
        merged.dataset += answer["datasets"]
        merged.labels += answer["labels"]
        for name, table in (("evidence", merged.evidence), ("tokens", merged.tokens), ("seconds", merged.seconds)):
            for key, values in answer[name].items():
                method, _, budget = key.rpartition("@")
                table.setdefault((method, int(budget)), []).extend(values)
        for ranking, values in answer["rankings"].items():
            merged.rankings.setdefault(ranking, []).extend(values)
    return merged
