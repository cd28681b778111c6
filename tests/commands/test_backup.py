"""`backup` and `restore` on the real graph server: exact round trips, refusals, bad files that write nothing."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import uuid
from collections.abc import Iterator
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memoria.curation.edit import edge_update
from memoria.curation.inputs import EdgeInvalidation, edge_patch_parse, entity_merge_parse
from memoria.curation.invalidate import edge_invalidate
from memoria.curation.merge import entity_merge
from memoria.curation.models import AuditEntry
from memoria.curation.undo import audit_entry_undo
from memoria.graph import driver
from memoria.graph.versions import group_version
from memoria.reindex import group_reindex
from tests.conftest import count_group
from tests.curation.memory import edge_id, node_id, store_curation_memory

pytestmark = pytest.mark.django_db


def snapshot(group: str) -> dict[str, Any]:
    """Every node, relationship, property (vectors too) and audit entry of a group; entry ids by position."""
    nodes = {
        row["id"]: (sorted(row["labels"]), row["props"])
        for row in driver.read(
            "MATCH (n:Memory {group_id: $group}) RETURN n.id AS id, labels(n) AS labels, properties(n) AS props",
            group=group,
        )
    }
    relationships = sorted(
        (
            (row["type"], row["source"], row["target"], row["props"])
            for row in driver.read(
                "MATCH (a:Memory {group_id: $group})-[r]->(b:Memory) "
                "RETURN type(r) AS type, a.id AS source, b.id AS target, properties(r) AS props",
                group=group,
            )
        ),
        key=repr,
    )
    entries = list(AuditEntry.objects.filter(group=group).order_by("id").prefetch_related("items"))
    position = {entry.pk: index for index, entry in enumerate(entries)}
    audit = [
        {
            "created_at": entry.created_at,
            "actor": entry.actor,
            "action": entry.action,
            "item": (entry.item_kind, entry.item_id),
            "before": entry.before,
            "after": entry.after,
            "undoes": position.get(entry.undoes_id),
            "undone_by": position.get(entry.undone_by_id),
            "items": sorted((item.kind, item.item_id, item.group) for item in entry.items.all()),
        }
        for entry in entries
    ]
    return {"nodes": nodes, "relationships": relationships, "audit": audit}


def renamed(value: Any, old: str, new: str) -> Any:
    """What a snapshot of `old` should look like once restored as `new`: group fields changed, nothing else."""
    if isinstance(value, dict):
        return {
            key: new if item == old and key in ("group_id",) else renamed(item, old, new) for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return type(value)(new if item == old else renamed(item, old, new) for item in value)
    return value


def group_delete(group: str) -> None:
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=group)
    AuditEntry.objects.filter(group=group).delete()


@pytest.fixture
def curated(group: str) -> str:
    """The curation memory, embedded, with an edit, an invalidation, a merge and an undo in its audit trail."""
    store_curation_memory(group)
    group_reindex(group=group)
    edge_update(group=group, edge_id=edge_id(group, "lives"), patch=edge_patch_parse({"weight": 0.9}), actor="cura")
    edge_invalidate(group=group, edge_id=edge_id(group, "maren-lives"), invalidation=EdgeInvalidation(), actor="b")
    merged = entity_merge(
        group=group,
        entity_id=node_id(group, "liv"),
        merge=entity_merge_parse({"from": node_id(group, "livdup")}),
        actor="c",
    )
    edit = edge_update(
        group=group, edge_id=edge_id(group, "sister"), patch=edge_patch_parse({"tags": ["kin"]}), actor="d"
    )
    audit_entry_undo(group=group, entry_id=edit.entry.pk, actor="d")
    assert merged.entry.pk and AuditEntry.objects.filter(group=group).count() == 5
    return group


@pytest.fixture
def other_group() -> Iterator[str]:
    name = f"t-{uuid.uuid4().hex[:12]}"
    yield name
    group_delete(name)


def backup(group: str, out: Path) -> str:
    stdout = StringIO()
    call_command("backup", group=group, out=out, stdout=stdout)
    return stdout.getvalue()


def restore(group: str, source: Path, *, replace: bool = False) -> str:
    stdout = StringIO()
    call_command("restore", group=group, source=source, replace=replace, stdout=stdout)
    return stdout.getvalue()


def test_a_deleted_group_comes_back_exactly(curated: str, tmp_path: Path) -> None:
    before = snapshot(curated)
    assert before["audit"][-1]["undoes"] == 3 and before["audit"][3]["undone_by"] == 4  # the links are exercised
    assert any("name_embedding" in props for _, props in before["nodes"].values())
    version = group_version(group=curated).version
    out = tmp_path / "g.memoria-backup.gz"
    said = backup(curated, out)
    nodes, relationships = len(before["nodes"]), len(before["relationships"])
    assert f"{nodes} nodes, {relationships} relationships, 5 audit entries" in said

    group_delete(curated)
    assert count_group(curated)["nodes"] == 0
    said = restore(curated, out)
    assert f"restored group {curated!r}: {nodes} nodes, {relationships} relationships, 5 audit entries" in said
    assert snapshot(curated) == before
    assert group_version(group=curated).version > version  # caches of the old group see new data


def test_restored_under_another_name(curated: str, other_group: str, tmp_path: Path) -> None:
    before = snapshot(curated)
    out = tmp_path / "g.gz"
    backup(curated, out)
    group_delete(curated)
    assert f"(backed up as {curated!r})" in restore(other_group, out)
    assert snapshot(other_group) == renamed(before, curated, other_group)
    assert count_group(curated)["nodes"] == 0


def test_a_non_empty_group_is_kept_unless_replace(curated: str, other_group: str, tmp_path: Path) -> None:
    out = tmp_path / "g.gz"
    backup(curated, out)
    before = snapshot(curated)
    edge_update(group=curated, edge_id=edge_id(curated, "works"), patch=edge_patch_parse({"weight": 0.3}), actor="z")
    changed = snapshot(curated)
    with pytest.raises(CommandError, match=r"holds \d+ nodes and 6 audit entries.*--replace"):
        restore(curated, out)
    assert snapshot(curated) == changed
    # Ids are keyed by group: the backup lands beside the group it came from, which stays as it is.
    restore(other_group, out)
    assert snapshot(other_group) == renamed(before, curated, other_group)
    assert snapshot(curated) == changed

    restore(curated, out, replace=True)
    assert snapshot(curated) == before


def rewrite(path: Path, lines: list[bytes]) -> None:
    path.write_bytes(gzip.compress(b"".join(lines)))


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("version", "backup format version 99; this Memoria restores version 1"),
        ("tamper", "checksum mismatch: the file was altered after it was written"),
        ("drop_end", "truncated (no end record)"),
        ("cut", "truncated (the compressed stream ends early)"),
        ("not_gzip", "not a gzip'd Memoria backup"),
        ("bad_label", "labels ['Memory', 'Robot'] must be Memory plus labels from the allow-list"),
        ("map_property", "a dict property is not something a backup carries"),
        ("repeated_item", "audit entry 0: an item is listed twice"),
    ],
)
def test_a_bad_file_is_refused_and_writes_nothing(
    curated: str, other_group: str, tmp_path: Path, damage: str, message: str
) -> None:
    out = tmp_path / "g.gz"
    backup(curated, out)
    lines = gzip.decompress(out.read_bytes()).splitlines(keepends=True)
    if damage == "version":
        header = json.loads(lines[0])
        rewrite(out, [json.dumps({**header, "version": 99}).encode() + b"\n", *lines[1:]])
    elif damage == "tamper":
        record = json.loads(lines[1])
        record["props"]["name"] = "Mallory"
        rewrite(out, [lines[0], json.dumps(record).encode() + b"\n", *lines[2:]])
    elif damage == "drop_end":
        rewrite(out, lines[:-1])
    elif damage == "cut":
        out.write_bytes(out.read_bytes()[: out.stat().st_size // 2])
    elif damage == "not_gzip":
        out.write_bytes(b"".join(lines))
    else:  # a well-formed file (digest recomputed) holding something the graph or the audit tables would refuse
        number = 1 if damage != "repeated_item" else next(i for i, line in enumerate(lines) if b'"audit"' in line)
        record = json.loads(lines[number])
        if damage == "bad_label":
            record["labels"] = ["Memory", "Robot"]
        elif damage == "map_property":
            record["props"]["nested"] = {"not": "a property value"}
        else:
            record["items"].append(record["items"][0])
        body = [*lines[:number], json.dumps(record).encode() + b"\n", *lines[number + 1 : -1]]
        end = json.loads(lines[-1])
        end["sha256"] = hashlib.sha256(b"".join(body)).hexdigest()
        rewrite(out, [*body, json.dumps(end).encode() + b"\n"])
    group_delete(curated)
    with pytest.raises(CommandError, match=re.escape(message)):
        restore(other_group, out)
    assert count_group(other_group)["nodes"] == 0 and not AuditEntry.objects.filter(group=other_group).exists()


def test_backup_refuses_to_overwrite_and_checks_the_group(group: str, tmp_path: Path) -> None:
    out = tmp_path / "exists.gz"
    out.write_bytes(b"keep me")
    with pytest.raises(CommandError, match="exists; pass --force"):
        backup(group, out)
    assert out.read_bytes() == b"keep me"
    with pytest.raises(CommandError, match="must be 1–64 letters"):
        backup("no spaces", tmp_path / "x.gz")
    with pytest.raises(CommandError, match="no such file"):
        restore(group, tmp_path / "missing.gz")
