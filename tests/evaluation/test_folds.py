"""The cross-validated block of a summary row, on a table small enough to work out by hand."""

from __future__ import annotations

import pytest

from memoria.evaluation.crossval import fold_indexes
from memoria.evaluation.folds import folds_json, folds_markdown, folds_text, row_folds
from memoria.evaluation.recall import RecallTable
from memoria.evaluation.report import ReportRow

ALL = ReportRow("all", frozenset({"x", "y"}), rule=True)
TITLES = {"m": "method m", "n": "method n", "dense": "dense"}
# recall@1 of each question (relevant item "a": found first → 1, else 0)
HITS = {"m": [1, 1, 0, 1], "n": [0, 0, 1, 1], "dense": [0, 1, 0, 0]}


def table(hits: dict[str, list[int]] = HITS) -> RecallTable:
    made = RecallTable(ks=(1,), methods=tuple(hits))
    for position in range(len(hits["dense"])):
        for method, found in hits.items():
            made.record(
                key=f"q{position}",
                label="x" if position % 2 else "y",
                method=method,
                retrieved=["a"] if found[position] else ["b"],
                relevant={"a"},
                seconds=0.001,
            )
    return made


def test_row_folds_by_hand() -> None:
    """m − dense per question is (1, 0, 0, 1): mean 0.5, and a resample's mean is j/4 with j ~ Binomial(4, 1/2)
    (P = 1/16, 4/16, 6/16, 4/16, 1/16), so its 2.5th percentile is 0 and its 97.5th is 1."""
    found = row_folds(table(), ALL, baseline="dense", candidates=("m", "n"), folds=2)
    assert found is not None and (found.questions, found.folds, found.baseline) == (4, 2, "dense")
    first, second = fold_indexes(4, folds=2)
    by_method = {m.method: m for m in found.methods}
    m = by_method["m"]
    assert m.folds == (sum(HITS["m"][i] for i in first) / 2, sum(HITS["m"][i] for i in second) / 2)
    assert m.mean == 0.75 and m.versus is not None
    assert (m.versus.mean, m.versus.low, m.versus.high) == (0.5, 0.0, 1.0)
    assert by_method["dense"].versus is None and by_method["dense"].mean == 0.25
    (choice,) = found.choices
    assert choice.candidates == ("m", "n") and choice.k == 1
    # m's training mean beats n's on either half unless n wins that half: work it out from the split
    for fold, held in zip(choice.validation.folds, (first, second), strict=True):
        train = second if held == first else first
        means = {name: sum(HITS[name][i] for i in train) / 2 for name in ("m", "n")}
        assert fold.chosen == ("m" if means["m"] >= means["n"] else "n")
        assert fold.test == sum(HITS[fold.chosen][i] for i in held) / 2


def test_lines_markdown_and_json() -> None:
    found = row_folds(table(), ALL, baseline="dense", candidates=("m", "n"), folds=2)
    assert found is not None
    lines = folds_text(found, TITLES)
    assert lines[0].startswith("cross-validated, row 'all': 4 questions in 2 folds (seed 13)")
    assert "10,000 resamples" in lines[0]
    assert lines[1].split()[:4] == ["method", "@k", "fold", "1"]
    m_line = next(line for line in lines if line.strip().startswith("method m"))
    assert m_line.split()[-4:] == ["0.750", "+0.500", "[+0.000,", "+1.000]"]
    assert next(line for line in lines if line.strip().startswith("dense")).split()[-2:] == ["—", "—"]
    chosen = [fold.chosen for fold in found.choices[0].validation.folds]
    expected = ", ".join(f"method {name} ×1" for name in chosen) if chosen[0] != chosen[1] else f"method {chosen[0]} ×2"
    assert any(line.strip() == f"chosen per fold: {expected}" for line in lines)
    markdown = folds_markdown(found, TITLES)
    assert markdown[2] == "| method | k | fold 1 | fold 2 | mean | − dense | 95 % interval |"
    assert any(line.startswith("| method m | 1 |") and "| +0.500 | [+0.000, +1.000] |" in line for line in markdown)
    figures = folds_json(found)
    assert figures["bootstrap_samples"] == 10_000 and figures["folds"] == 2
    assert figures["methods"][0]["minus_baseline"] == {"mean": 0.5, "low": 0.0, "high": 1.0, "questions": 4}
    assert [fold["fold"] for fold in figures["chosen"][0]["folds"]] == [1, 2]


def test_few_questions() -> None:
    one = {name: hits[:1] for name, hits in HITS.items()}
    assert row_folds(table(one), ALL, baseline="dense", candidates=("m",)) is None
    three = {name: hits[:3] for name, hits in HITS.items()}
    found = row_folds(table(three), ALL, baseline="dense", candidates=("m",))  # 5 folds asked, 3 questions
    assert found is not None and found.folds == 3


def test_methods_asked_other_questions_are_refused() -> None:
    made = table()
    made.scores = [score for score in made.scores if not (score.method == "n" and score.key == "q2")]
    with pytest.raises(ValueError, match="n was not asked the questions dense was"):
        row_folds(made, ALL, baseline="dense", candidates=())
