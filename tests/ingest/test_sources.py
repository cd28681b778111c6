"""Episode files: JSON Lines, Markdown sections, text paragraphs; problems name the file and the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from memoria.errors import InvalidInput
from memoria.ingest.sources import episodes_from_file


def test_jsonl_one_episode_a_line(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text(
        '{"id": "m1", "content": "Oren: the pallets arrived", "valid_at": "2024-03-13T15:30:00Z"}\n'
        "\n"
        '{"content": "Liv: good", "source": "message"}\n'
    )
    episodes = episodes_from_file(path, valid_at="2024-03-14T09:00:00Z")
    assert [(e.id, e.content, e.valid_at) for e in episodes] == [
        ("m1", "Oren: the pallets arrived", "2024-03-13T15:30:00Z"),
        (None, "Liv: good", "2024-03-14T09:00:00Z"),
    ]


def test_jsonl_problems_name_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"content": "fine"}\n{"content": \n{"content": "x", "valid_at": "soon"}\n')
    with pytest.raises(InvalidInput) as caught:
        episodes_from_file(path)
    problems = caught.value.problems
    assert problems[0].startswith(f"{path}:2: malformed JSON")
    assert problems[1].startswith(f"{path}:3.valid_at: 'soon' is not a usable ISO 8601 date-time")


def test_markdown_one_episode_a_section_and_fences_do_not_split(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text(
        "Intro line about the depot.\n\n"
        "# Suppliers\nNordbalt Metals ships steel.\n\n"
        "## Delays\nThe strike delayed SKU-4471.\n```\n# not a heading\n```\n"
    )
    episodes = episodes_from_file(path)
    assert [e.name for e in episodes] == ["notes.md section 1", "notes.md › Suppliers", "notes.md › Delays"]
    assert "# not a heading" in episodes[2].content
    assert all(e.source == "text" for e in episodes)


def test_text_one_episode_a_paragraph(tmp_path: Path) -> None:
    path = tmp_path / "log.txt"
    path.write_text("First paragraph,\nstill first.\n\n\nSecond paragraph.\n")
    episodes = episodes_from_file(path)
    assert [e.content for e in episodes] == ["First paragraph,\nstill first.", "Second paragraph."]
    assert episodes[1].name == "log.txt paragraph 2"


def test_unreadable_files(tmp_path: Path) -> None:
    binary = tmp_path / "blob.txt"
    binary.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(InvalidInput, match="not UTF-8"):
        episodes_from_file(binary)
    with pytest.raises(InvalidInput, match="cannot read"):
        episodes_from_file(tmp_path / "absent.txt")
