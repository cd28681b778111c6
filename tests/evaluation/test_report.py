"""The recall table as text, Markdown and JSON: rows over label sets, a dash where a row has no question."""

from __future__ import annotations

from memoria.evaluation.recall import RecallTable
from memoria.evaluation.report import ReportRow, recall_json, recall_markdown, recall_text, timing_lines

ROWS = (
    ReportRow("x", frozenset({"x"})),
    ReportRow("empty", frozenset({"nothing"})),
    ReportRow("all", frozenset({"x", "y"}), rule=True),
)
TITLES = {"m": "method m", "n": "a much longer method title"}


def table() -> RecallTable:
    made = RecallTable(ks=(1, 3), methods=("m", "n"))
    made.record(key="q1", label="x", method="m", retrieved=["a", "b"], relevant={"b"}, seconds=0.002)
    made.record(key="q1", label="x", method="n", retrieved=["b"], relevant={"b"}, seconds=0.004)
    made.record(key="q2", label="y", method="m", retrieved=["c"], relevant={"c", "d"}, seconds=0.002)
    made.record(key="q2", label="y", method="n", retrieved=["e"], relevant={"c", "d"}, seconds=0.004)
    return made


def test_text_table() -> None:
    lines = recall_text(table(), ROWS, TITLES)
    assert "method m" in lines[0] and "a much longer method title" in lines[0]
    assert lines[1].split() == ["category", "n", "@1", "@3", "|", "@1", "@3"]
    assert lines[2].split() == ["x", "1", "0.000", "1.000", "|", "1.000", "1.000"]
    assert lines[3].split() == ["empty", "0", "—", "—", "|", "—", "—"]
    assert set(lines[4]) == {"-"}
    assert lines[5].split() == ["all", "2", "0.250", "0.750", "|", "0.500", "0.500"]
    assert len({line.index("|") for line in lines if "|" in line}) == 1  # the blocks line up


def test_markdown_table() -> None:
    lines = recall_markdown(table(), ROWS, TITLES)
    assert lines[0] == (
        "| category | n | method m @1 | method m @3 | a much longer method title @1 | a much longer method title @3 |"
    )
    assert lines[1] == "|---|---:|---:|---:|---:|---:|"
    assert lines[2] == "| x | 1 | 0.000 | 1.000 | 1.000 | 1.000 |"
    assert lines[4] == "| **all** | 2 | 0.250 | 0.750 | 0.500 | 0.500 |"


def test_timings_and_json() -> None:
    lines = timing_lines(table(), TITLES, unit="turns")
    assert "method m" in lines[0] and "p50     2.0 ms" in lines[0] and "1.5 turns returned" in lines[0]
    assert "a much longer method title" in lines[1] and "1.0 turns returned" in lines[1]
    figures = recall_json(table(), ROWS)
    assert figures["ks"] == [1, 3]
    assert figures["rows"][2] == {
        "title": "all",
        "questions": 2,
        "recall": {"m": {"1": 0.25, "3": 0.75}, "n": {"1": 0.5, "3": 0.5}},
    }
    assert figures["rows"][1]["recall"]["m"] == {"1": None, "3": None}
    assert figures["questions"][1] == {
        "key": "q1", "label": "x", "method": "n", "recall": {"1": 1.0, "3": 1.0}, "retrieved": 1, "ms": 4.0
    }  # fmt: skip
    assert figures["latency"]["n"]["questions"] == 2
