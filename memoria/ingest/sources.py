"""Episodes from files: JSON Lines (one episode object a line), Markdown (one a section), text (one a paragraph).

A file is read and checked whole before anything is written; each problem names the file and the
line, so a bad file is fixed where it is bad.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from memoria.errors import InvalidInput
from memoria.graph.rules import MAX_NAME_LENGTH
from memoria.ingest.episodes import EpisodeInput, episodes_parse_at
from memoria.interchange.jsontext import TOO_MANY_DIGITS, file_bytes, utf8_text

JSONL_SUFFIXES = (".jsonl", ".ndjson")
MARKDOWN_SUFFIXES = (".md", ".markdown")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
FENCE = re.compile(r"^ {0,3}(```|~~~)")


def file_format(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix in JSONL_SUFFIXES:
        return "jsonl"
    return "markdown" if suffix in MARKDOWN_SUFFIXES else "text"


def read_text(path: Path) -> str:
    return utf8_text(file_bytes(path), where=str(path))


def episodes_from_jsonl(path: Path, text: str, *, valid_at: str | None) -> list[EpisodeInput]:
    items: list[tuple[str, Any]] = []
    problems: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as error:
            problems.append(f"{path}:{number}: malformed JSON at column {error.colno}: {error.msg}")
            continue
        except RecursionError:
            problems.append(f"{path}:{number}: JSON nested too deeply")
            continue
        except ValueError:
            problems.append(f"{path}:{number}: {TOO_MANY_DIGITS}")
            continue
        if valid_at and isinstance(raw, dict):
            raw.setdefault("valid_at", valid_at)
        items.append((f"{path}:{number}", raw))
    try:
        episodes = episodes_parse_at(items)
    except InvalidInput as error:
        problems.extend(error.problems)
    if problems:
        raise InvalidInput(problems)
    return episodes


def _blocks(text: str, *, markdown: bool) -> list[tuple[int, str | None, str]]:
    """(first line, heading, body) per paragraph, or per Markdown section (a heading in a code fence is text)."""
    blocks: list[tuple[int, str | None, str]] = []
    heading: str | None = None
    current: list[tuple[int, str]] = []
    in_fence = False

    def close() -> None:
        body = "\n".join(line for _, line in current).strip()
        if body:
            blocks.append((next(number for number, line in current if line.strip()), heading, body))
        current.clear()

    for number, line in enumerate(text.splitlines(), start=1):
        if markdown and FENCE.match(line):
            in_fence = not in_fence
        match = HEADING.match(line) if markdown and not in_fence else None
        if match:
            close()
            heading = match.group(2)
        elif not markdown and not line.strip():
            close()
            continue
        current.append((number, line))
    close()
    return blocks


def episodes_from_text(path: Path, text: str, *, markdown: bool, valid_at: str | None) -> list[EpisodeInput]:
    unit = "section" if markdown else "paragraph"
    items: list[tuple[str, Any]] = []
    for index, (line, heading, body) in enumerate(_blocks(text, markdown=markdown), start=1):
        name = f"{path.name} › {heading}" if heading else f"{path.name} {unit} {index}"
        raw = {"content": body, "name": name[:MAX_NAME_LENGTH], "source": "text"}
        if valid_at:
            raw["valid_at"] = valid_at
        items.append((f"{path}:{line} ({unit} {index})", raw))
    return episodes_parse_at(items)


def episodes_from_file(path: Path, *, valid_at: str | None = None) -> list[EpisodeInput]:
    """Every episode of one file, or InvalidInput naming each bad position (and nothing is written).

    `valid_at` is the reference time of episodes that give none (text and Markdown never do).
    """
    text = read_text(path)
    kind = file_format(path)
    if kind == "jsonl":
        episodes = episodes_from_jsonl(path, text, valid_at=valid_at)
    else:
        episodes = episodes_from_text(path, text, markdown=kind == "markdown", valid_at=valid_at)
    if not episodes:
        # An empty file is more likely a failed export than an intended no-op: say so rather than add nothing.
        raise InvalidInput(f"{path}: holds no episodes (the file is empty or blank)")
    return episodes
