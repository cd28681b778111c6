"""The offline entity extractor on invented texts: speakers, names, phrases, identifiers; dates kept out."""

from __future__ import annotations

from memoria.ingest.context import PriorEpisode
from memoria.ingest.extract_entities import (
    IDENTIFIER,
    PHRASE,
    PROPER,
    SPEAKER,
    EntityExtraction,
    EntityExtractionInput,
    OfflineEntityExtractor,
)

REFERENCE = "2024-03-13T15:30:00Z"


def extract(content: str, source: str = "message", context: tuple[PriorEpisode, ...] = ()) -> EntityExtraction:
    return OfflineEntityExtractor().extract_entities(EntityExtractionInput(content, source, REFERENCE, context))


def kinds_by_key(extraction: EntityExtraction) -> dict[str, str]:
    return {entity.key: entity.kind for entity in extraction.entities}


def test_speaker_names_and_phrases() -> None:
    found = extract("Oren: Hi Liv! I took the pottery workshop at the Harbour Arts Centre yesterday.")
    assert kinds_by_key(found) == {
        "oren": SPEAKER,
        "liv": PROPER,
        "pottery workshop": PHRASE,
        "harbour arts centre": PROPER,
    }
    workshop = next(e for e in found.entities if e.key == "pottery workshop")
    assert workshop.labels == ("Event",)
    assert [d.text for d in found.dates] == ["yesterday"]


def test_every_span_points_back_into_the_content() -> None:
    content = "Liv: Oren's sister Maren moved to Tallinn. Maren loves Tallinn."
    found = extract(content)
    for entity in found.entities:
        for start, end in entity.spans:
            assert content[start:end] == entity.name or content[start:end].lower() == entity.name.lower()
    maren = next(e for e in found.entities if e.key == "maren")
    assert len(maren.spans) == 2 and maren.confidence > 0.8  # repeated mentions add confidence
    assert "oren" in kinds_by_key(found)  # the possessive's owner, without its 's


def test_identifiers_quantities_and_dates_are_not_names() -> None:
    found = extract("The depot shipped 400 units of SKU-4471 to Kestrel Foods on 2 March 2024.", source="text")
    assert kinds_by_key(found) == {"depot": PHRASE, "sku 4471": IDENTIFIER, "kestrel food": PROPER}
    assert [q.text for q in found.quantities] == ["400 units"]
    assert [d.value for d in found.dates] == ["2024-03-02T00:00:00Z"]
    assert not any("march" in key for key in kinds_by_key(found))


def test_speakers_only_in_messages() -> None:
    assert "note" not in kinds_by_key(extract("Note: the depot closes early.", source="text"))
    assert kinds_by_key(extract("Note: the depot closes early."))["note"] == SPEAKER


def test_sentence_initial_words_are_names_only_when_the_text_says_so() -> None:
    assert "yesterday" not in kinds_by_key(extract("Yesterday was long.", source="text"))
    assert kinds_by_key(extract("Tallinn was cold. We liked Tallinn.", source="text"))["tallinn"] == PROPER
    painting = extract("Painting calms me down.", source="text")
    assert "painting" not in kinds_by_key(painting)


def test_you_means_the_last_other_speaker() -> None:
    context = (
        PriorEpisode("e2", "2", "Oren: and you?", "message", REFERENCE),
        PriorEpisode("e1", "1", "Liv: how was the trip?", "message", REFERENCE),
    )
    found = extract("Liv: I am proud of you!", context=context)
    assert found.addressee == "Oren"
    assert kinds_by_key(found)["oren"] == SPEAKER
    assert extract("Liv: all good here.", context=context).addressee == "Oren"
    assert "oren" not in kinds_by_key(extract("Liv: all good here.", context=context))


def test_same_input_same_output() -> None:
    content = "Oren: Kestrel Foods moved the tasting event to the Harbour Arts Centre."
    assert extract(content) == extract(content)
