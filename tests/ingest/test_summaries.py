"""Step 6: extractive summaries keep the newest sentences within their budget, each once."""

from __future__ import annotations

from memoria.ingest.summaries import SummaryInput, sentences_about, summary_update
from memoria.ingest.text import sentences_of


def test_new_sentences_are_appended_once() -> None:
    first = summary_update(request=SummaryInput("", ("Maren lives in Tallinn.",)))
    assert first.summary == "Maren lives in Tallinn." and first.changed
    again = summary_update(request=SummaryInput(first.summary, ("maren lives in tallinn.", "She sails.")))
    assert again.summary == "Maren lives in Tallinn. She sails."
    assert not summary_update(request=SummaryInput(again.summary, ("She sails.",))).changed


def test_the_oldest_sentences_go_first() -> None:
    summary = ""
    for day in range(40):
        summary = summary_update(request=SummaryInput(summary, (f"On day {day} Maren sailed.",)), max_chars=100).summary
    assert len(summary) <= 100 and summary.endswith("On day 39 Maren sailed.")
    long = summary_update(request=SummaryInput("", ("word " * 50,)), max_chars=40).summary
    assert len(long) <= 41 and long.endswith("…")


def test_sentences_about_an_entity() -> None:
    content = "Liv: Maren sails. The weather was bad. Maren won."
    sentences = sentences_of(content, speakers=True)
    spans = [(5, 10), (39, 44)]
    found = sentences_about(sentences=sentences, spans=spans, fact_texts=["Maren sails.", "Liv: we cheered"])
    assert found == ("Liv: Maren sails.", "Liv: Maren won.", "Liv: we cheered")
