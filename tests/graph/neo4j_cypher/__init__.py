"""Every Cypher text Memoria can send, checked by Neo4j's own parser and linter (lint.cjs, run under Node).

Neo4j cannot run on these machines, so this is how a query that Neo4j 5 would refuse fails the build here. Texts
come from two places: the named Cypher constants of every module, their allow-listed slots filled (static_texts),
and, in a whole run of the suite, every text the driver actually sent (recorder.py). The Neo4j side of each dialect
difference is the Neo4j dialect's DDL, rendered for every index the schema declares.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
import shutil
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path

import memoria
from memoria.graph import kinds, schema
from memoria.graph.dialect import Neo4jDialect
from memoria.graph.versions import GROUP_STAMP

HERE = Path(__file__).resolve().parent
LINTER = HERE / "lint.cjs"
CYPHER_START = re.compile(r"^\s*(OPTIONAL MATCH|MATCH|MERGE|CREATE|CALL|UNWIND|WITH|RETURN|DROP|SHOW)\b")
# Slots that code fills from allow-lists (memoria/graph/kinds.py and the schema), with a value each may take.
SLOT_VALUES = {
    "label": kinds.ENTITY,
    "labels": f"{kinds.MEMORY_LABEL}:{kinds.ENTITY}",
    "rel_type": kinds.RELATES,
    "type": kinds.RELATES,
    "vector": "fact_embedding",
}


def declared_schema() -> dict[str, list[str]]:
    """The labels and relationship types the models declare: a text naming another is a misspelling."""
    labels = {kinds.MEMORY_LABEL, *kinds.NODE_KINDS, *kinds.DEFAULT_ENTITY_LABELS, GROUP_STAMP}
    return {"labels": sorted(labels), "relationshipTypes": sorted({kinds.RELATES, kinds.MENTIONS, kinds.HAS_MEMBER})}


SLOT = re.compile(r"\{([a-z_]+)\}")  # a `.format` slot: a Cypher map always has `key: value` inside its braces


def _filled(text: str) -> str | None:
    """The text with its allow-listed slots filled; None when code fills a slot (a fragment of Cypher built by a
    function): the recorded run covers those. Most constants are f-strings already, whose braces are Cypher maps."""
    slots = set(SLOT.findall(text))
    if not slots:
        return text
    if slots - SLOT_VALUES.keys():
        return None
    return SLOT.sub(lambda match: SLOT_VALUES[match.group(1)], text).replace("{{", "{").replace("}}", "}")


def static_texts() -> tuple[dict[str, str], list[str]]:
    """(where → Cypher text) for every module-level Cypher constant and the Neo4j DDL, and the constants skipped
    because a slot is filled by code rather than from an allow-list (those are covered by the recorded run)."""
    texts: dict[str, str] = {}
    skipped: list[str] = []
    for module_info in pkgutil.walk_packages(memoria.__path__, "memoria."):
        module = importlib.import_module(module_info.name)
        for name, value in vars(module).items():
            if not (name.isupper() and isinstance(value, str) and CYPHER_START.match(value)):
                continue
            if getattr(module, "__name__", "") != module_info.name:
                continue
            where = f"{module_info.name}.{name}"
            filled = _filled(value)
            if filled is None:
                skipped.append(where)
            else:
                texts[where] = filled
    # A fragment that other constants of its module end or begin with is checked inside them, not alone.
    texts = {
        where: text
        for where, text in texts.items()
        if not any(
            other != where and other.rsplit(".", 1)[0] == where.rsplit(".", 1)[0] and text in whole and text != whole
            for other, whole in texts.items()
        )
    }
    neo4j = Neo4jDialect()
    for spec in schema.UNIQUE:
        texts[f"neo4j DDL {spec.name}"] = neo4j.unique_statement(spec)
        texts[f"neo4j DDL drop {spec.name}"] = neo4j.drop_statement(spec.name)
    for spec in schema.RANGE:
        texts[f"neo4j DDL range {spec.slug}"] = neo4j.range_statement(spec)
    for spec in schema.FULLTEXT:
        texts[f"neo4j DDL fulltext {spec.slug}"] = neo4j.fulltext_statement(spec)
    for spec in schema.VECTOR:
        texts[f"neo4j DDL vector {spec.slug}"] = neo4j.vector_statement(spec, 384)
    return texts, skipped


def refusals(problems: Mapping[str, list[str]], *, names: bool = True) -> dict[str, list[str]]:
    """The problems that fail the build: Neo4j's errors and, with `names`, labels or types the models do not declare
    (not for texts sent at run time, which carry the allow-listed labels users chose). A deprecation is a warning
    Neo4j 5 still runs; tests/graph/test_neo4j_cypher.py keeps their list, each with its reason."""
    kept = {
        where: [
            item for item in found if item.startswith("error:") or (names and "is not present in the database" in item)
        ]
        for where, found in problems.items()
    }
    return {where: found for where, found in kept.items() if found}


def linter_ready() -> str | None:
    """Why the linter cannot run, or None. scripts/bootstrap test installs it."""
    if shutil.which("node") is None:
        return "node is not installed (scripts/bootstrap test installs Debian's nodejs)"
    if not (HERE / "node_modules" / "@neo4j-cypher" / "language-support").is_dir():
        return f"the linter is not installed: run scripts/bootstrap test (npm ci --prefix {HERE})"
    return None


def lint(texts: Mapping[str, str], *, schema_names: Mapping[str, Iterable[str]] | None = None) -> dict[str, list[str]]:
    """The problems Neo4j's linter finds, per text that has any."""
    request = {
        "schema": {key: list(values) for key, values in (schema_names or declared_schema()).items()},
        "queries": dict(texts),
    }
    done = subprocess.run(
        ["node", str(LINTER)], input=json.dumps(request), capture_output=True, text=True, cwd=HERE, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"the Cypher linter failed: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout)
