"""The cross-validated reading of a recall table's summary rows: each method's figure per fold, its difference to
the baseline with a paired bootstrap interval, and the best method chosen on the other folds.

The plain table says what each method scored on these questions; this block says how much of that would be
expected to carry to other questions (docs/evaluation.md, "How figures are read").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memoria.evaluation.crossval import (
    BOOTSTRAP_SAMPLES,
    CONFIDENCE,
    DEFAULT_FOLDS,
    SEED,
    CrossValidation,
    Difference,
    cross_validate,
    fold_indexes,
    fold_means,
    paired_bootstrap,
)
from memoria.evaluation.recall import RecallTable
from memoria.evaluation.report import ReportRow

CHOSEN = "chosen"  # the JSON name of the cross-validated choice among the candidates


@dataclass(frozen=True)
class MethodFolds:
    method: str
    k: int
    folds: tuple[float, ...]
    mean: float
    versus: Difference | None  # None for the baseline itself


@dataclass(frozen=True)
class ChoiceFolds:
    """The candidates' best on the training folds, scored on the held-out one (cross_validate)."""

    k: int
    candidates: tuple[str, ...]
    validation: CrossValidation
    versus: Difference


@dataclass(frozen=True)
class RowFolds:
    row: str
    questions: int
    folds: int
    seed: int
    baseline: str
    methods: tuple[MethodFolds, ...]
    choices: tuple[ChoiceFolds, ...]


def row_folds(
    table: RecallTable,
    row: ReportRow,
    *,
    baseline: str,
    candidates: Sequence[str],
    folds: int = DEFAULT_FOLDS,
    seed: int = SEED,
) -> RowFolds | None:
    """Per-fold figures of every method on the row's questions and the choice among `candidates` (listed first
    wins a tie); None below two questions. Fewer questions than folds use one fold per question."""
    keys, _ = table.column(baseline, row.labels, table.ks[0])
    if len(keys) < 2:
        return None
    count = min(folds, len(keys))
    parts = fold_indexes(len(keys), folds=count, seed=seed)
    methods: list[MethodFolds] = []
    choices: list[ChoiceFolds] = []
    for k in table.ks:
        columns: dict[str, list[float]] = {}
        for method in table.methods:
            method_keys, columns[method] = table.column(method, row.labels, k)
            if method_keys != keys:
                raise ValueError(f"{method} was not asked the questions {baseline} was, in the same order")
        for method in table.methods:
            versus = None if method == baseline else paired_bootstrap(columns[method], columns[baseline])
            values = columns[method]
            methods.append(MethodFolds(method, k, tuple(fold_means(values, parts)), sum(values) / len(values), versus))
        if candidates:
            validation = cross_validate({name: columns[name] for name in candidates}, folds=count, seed=seed)
            versus = paired_bootstrap(validation.held_out, columns[baseline])
            choices.append(ChoiceFolds(k, tuple(candidates), validation, versus))
    return RowFolds(row.title, len(keys), count, seed, baseline, tuple(methods), tuple(choices))


def _signed(value: float | None) -> str:
    return "—" if value is None else f"{value:+.3f}"


def _interval(versus: Difference | None) -> str:
    if versus is None:
        return "—"
    if versus.low is None or versus.high is None:
        return "n/a (one question)"
    return f"[{versus.low:+.3f}, {versus.high:+.3f}]"


def _heading(found: RowFolds, titles: dict[str, str]) -> str:
    return (
        f"cross-validated, row {found.row!r}: {found.questions} questions in {found.folds} folds (seed {found.seed}); "
        f"− {titles.get(found.baseline, found.baseline)}: mean difference and paired bootstrap "
        f"{CONFIDENCE:.0%} interval ({BOOTSTRAP_SAMPLES:,} resamples of the questions)"
    )


MAX_NAMED_CANDIDATES = 4  # a longer list (a grid of settings) is counted, and each fold's choice named below


def _choice_title(choice: ChoiceFolds, titles: dict[str, str]) -> str:
    if len(choice.candidates) > MAX_NAMED_CANDIDATES:
        return f"best of {len(choice.candidates)} settings, held out"
    return "best of " + "/".join(titles.get(name, name) for name in choice.candidates) + ", held out"


def _chosen_names(choice: ChoiceFolds, titles: dict[str, str]) -> str:
    """Fold by fold, a run of one choice written once: "PPR ×2, relation-aware PPR ×3"."""
    runs: list[list] = []
    for fold in choice.validation.folds:
        if runs and runs[-1][0] == fold.chosen:
            runs[-1][1] += 1
        else:
            runs.append([fold.chosen, 1])
    return ", ".join(f"{titles.get(name, name)} ×{count}" for name, count in runs)


def folds_text(found: RowFolds, titles: dict[str, str]) -> list[str]:
    """Fixed-width lines: one per method and k, then the held-out choice at each k and what each fold chose."""
    names = [titles.get(m.method, m.method) for m in found.methods]
    names += [_choice_title(choice, titles) for choice in found.choices]
    width = max(len(name) for name in names)
    heads = "".join(f"fold {n}".rjust(8) for n in range(1, found.folds + 1))
    lines = [
        _heading(found, titles),
        "  " + "method".ljust(width) + "  @k " + heads + "    mean" + "  − base".rjust(9) + "  interval",
    ]

    def line(name: str, k: int, folds: Sequence[float], mean: float, versus: Difference | None) -> str:
        cells = "".join(f"{value:8.3f}" for value in folds)
        difference = _signed(versus.mean if versus else None)
        return f"  {name.ljust(width)}  @{k:<2}{cells}{mean:8.3f}{difference:>9}  {_interval(versus)}"

    for method in found.methods:
        lines.append(line(titles.get(method.method, method.method), method.k, method.folds, method.mean, method.versus))
    for choice in found.choices:
        tests = [fold.test for fold in choice.validation.folds]
        lines.append(line(_choice_title(choice, titles), choice.k, tests, choice.validation.mean, choice.versus))
        lines.append(f"  {'':{width}}       chosen per fold: {_chosen_names(choice, titles)}")
    return lines


def folds_markdown(found: RowFolds, titles: dict[str, str]) -> list[str]:
    """The same as a Markdown table, for docs/evaluation.md."""
    heads = " | ".join(f"fold {n}" for n in range(1, found.folds + 1))
    base = titles.get(found.baseline, found.baseline)
    lines = [
        f"*{_heading(found, titles)}*",
        "",
        f"| method | k | {heads} | mean | − {base} | 95 % interval |",
        "|---|---:|" + "---:|" * found.folds + "---:|---:|---|",
    ]
    for method in found.methods:
        cells = " | ".join(f"{value:.3f}" for value in method.folds)
        lines.append(
            f"| {titles.get(method.method, method.method)} | {method.k} | {cells} | {method.mean:.3f} | "
            f"{_signed(method.versus.mean if method.versus else None)} | {_interval(method.versus)} |"
        )
    for choice in found.choices:
        cells = " | ".join(f"{fold.test:.3f}" for fold in choice.validation.folds)
        lines.append(
            f"| {_choice_title(choice, titles)} ({_chosen_names(choice, titles)}) | {choice.k} | {cells} | "
            f"{choice.validation.mean:.3f} | {_signed(choice.versus.mean)} | {_interval(choice.versus)} |"
        )
    return lines


def _difference_json(versus: Difference | None) -> dict | None:
    if versus is None:
        return None
    return {"mean": versus.mean, "low": versus.low, "high": versus.high, "questions": versus.questions}


def folds_json(found: RowFolds) -> dict:
    return {
        "row": found.row,
        "questions": found.questions,
        "folds": found.folds,
        "seed": found.seed,
        "bootstrap_samples": BOOTSTRAP_SAMPLES,
        "confidence": CONFIDENCE,
        "baseline": found.baseline,
        "methods": [
            {
                "method": m.method,
                "k": m.k,
                "folds": list(m.folds),
                "mean": m.mean,
                "minus_baseline": _difference_json(m.versus),
            }
            for m in found.methods
        ],
        CHOSEN: [
            {
                "k": choice.k,
                "candidates": list(choice.candidates),
                "folds": [
                    {"fold": f.fold, "chosen": f.chosen, "train": f.train, "test": f.test, "questions": f.questions}
                    for f in choice.validation.folds
                ],
                "mean": choice.validation.mean,
                "minus_baseline": _difference_json(choice.versus),
            }
            for choice in found.choices
        ],
    }
