"""Bandit's rules (ruff's `S`) stay clean and every exception says why (issue 33, item 8).

`make test` runs `ruff check .` first, which includes `S`; this test keeps the promise around it: `S` stays
selected, nothing under it is reported, and each way out (a `# noqa: S…` at a line, an `S` code ignored in
pyproject.toml) carries its reason.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib

from tests.conftest import ROOT

NOQA_S = re.compile(r"#\s*noqa:\s*((?:S\d{3}[,\s]*)+)(.*)$")


def _config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]


def test_bandit_rules_are_selected_and_clean() -> None:
    assert "S" in _config()["select"]
    found = subprocess.run(  # the project's own configuration, its justified exceptions included
        [sys.executable, "-m", "ruff", "check", "--output-format", "json", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    problems = [problem for problem in json.loads(found.stdout) if problem["code"].startswith("S")]
    assert problems == [], [f"{p['filename']}:{p['location']['row']} {p['code']} {p['message']}" for p in problems]


def test_every_noqa_of_a_bandit_rule_gives_its_reason() -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()
    bare = []
    for name in tracked:
        for number, line in enumerate((ROOT / name).read_text().splitlines(), start=1):
            if (found := NOQA_S.search(line)) and not re.search(r"[-—]\s*\w", found[2]):
                bare.append(f"{name}:{number}: {line.strip()}")
    assert not bare, "a `# noqa: S…` without `- why`:\n" + "\n".join(bare)


def test_every_bandit_rule_ignored_in_pyproject_is_explained_there() -> None:
    config = _config()
    ignored = {code for code in config["ignore"] if code.startswith("S")}
    ignored |= {code for codes in config["per-file-ignores"].values() for code in codes if code.startswith("S")}
    comments = "\n".join(
        line for line in (ROOT / "pyproject.toml").read_text().splitlines() if line.lstrip().startswith("#")
    )
    assert ignored and not [code for code in sorted(ignored) if code not in comments]
