"""The shared text rules: name keys that make spellings meet, lemmas that make relations meet, sentences."""

from __future__ import annotations

import pytest

from memoria.ingest import text


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("The Support Groups", "support group"),
        ("support-group's", "Support group"),
        ("Dr. Ilse Varga", "Ilse Varga"),
        ("Café Noor", "cafe noor"),
        ("boxes", "box"),
        ("berries", "Berry"),
    ],
)
def test_spellings_of_one_name_share_a_key(first: str, second: str) -> None:
    assert text.name_key(first) == text.name_key(second)


def test_different_names_keep_different_keys() -> None:
    assert text.name_key("Berlin") != text.name_key("Berlin Marathon")
    assert text.name_key("news") == "news"  # not a plural
    assert text.name_key("Tomas") == "tomas"  # a one-word name is not a plural either


@pytest.mark.parametrize(
    ("form", "lemma"),
    [("went", "go"), ("lives", "live"), ("lived", "live"), ("living", "live"), ("stopped", "stop"),
     ("studies", "study"), ("shipped", "ship"), ("is", "be"), ("I'm", "be"), ("volunteered", "volunteer")],
)  # fmt: skip
def test_verb_forms_meet_at_their_lemma(form: str, lemma: str) -> None:
    assert text.verb_lemma(form) == lemma


def test_nouns_are_not_verbs() -> None:
    assert text.verb_lemma("warehouse") is None
    assert text.looks_like_noun("warehouse")
    assert not text.looks_like_noun("beautiful") and not text.looks_like_noun("the")


def test_sentences_split_on_ends_but_not_on_abbreviations_and_carry_speakers() -> None:
    content = "Oren: Dr. Varga called. She was late!\nLiv: Really? OK."
    sentences = text.sentences_of(content, speakers=True)
    assert [(s.speaker, s.text) for s in sentences] == [
        ("Oren", "Dr. Varga called."),
        ("Oren", "She was late!"),
        ("Liv", "Really?"),
        ("Liv", "OK."),
    ]
    assert all(content[s.start : s.end] == s.text for s in sentences)


def test_initials_and_snake_case() -> None:
    assert text.initials("Northwind Freight Logistics") == "nfl"
    assert text.initials("Northwind") == ""
    assert text.snake_case(["went", "to"]) == "went_to"
