"""Private files (issue 33, item 3): everything under var/ is the owner's alone, 0600 files in 0700 folders.

The probe found var/memoria.sqlite3 (users, tokens) 0644 and the graph store's files 0644 in 0755 folders. Each
creator is held here: the settings (secrets), `migrate` (SQLite), the embedded graph server, `backup`; and what
an older version left readable is fixed when the app starts, with a log line.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from memoria.graph.embedded import EmbeddedServer
from tests.browse.graphs import load
from tests.conftest import ROOT, dedicated_graph_server
from tests.curation.memory import curation_document


def _shared(root: Path) -> list[str]:
    """Every path below `root` (itself included) that the group or others may read, write or enter."""
    paths = [root, *root.rglob("*")]
    return [f"{oct(stat.S_IMODE(p.lstat().st_mode))} {p}" for p in paths if stat.S_IMODE(p.lstat().st_mode) & 0o077]


def _manage(var_dir: Path, *arguments: str) -> subprocess.CompletedProcess:
    """A manage.py command on a var/ of its own, as a fresh install runs it (the shell's umask is the usual 022)."""
    environment = {
        name: value for name, value in os.environ.items() if not name.startswith(("MEMORIA_", "DJANGO_SETTINGS"))
    }
    environment |= {"MEMORIA_VAR_DIR": str(var_dir), "DJANGO_SETTINGS_MODULE": "memoria.settings"}
    return subprocess.run(
        [sys.executable, "manage.py", *arguments],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        preexec_fn=lambda: os.umask(0o022),
    )


def test_a_fresh_install_writes_secrets_and_sqlite_privately(tmp_path: Path) -> None:
    var_dir = tmp_path / "var"
    _manage(var_dir, "migrate", "--noinput", "--verbosity", "0")
    assert {"secrets.json", "memoria.sqlite3", "static"} <= {p.name for p in var_dir.iterdir()}
    assert stat.S_IMODE(var_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE((var_dir / "memoria.sqlite3").stat().st_mode) == 0o600
    assert _shared(var_dir) == []


def test_files_left_readable_are_made_private_at_start_with_a_log_line(tmp_path: Path) -> None:
    var_dir = tmp_path / "var"
    (var_dir / "graphdb" / "memoria").mkdir(parents=True)
    for name in ("memoria.sqlite3", "graphdb/memoria/bucket.0", "graphdb/server.log"):
        (var_dir / name).write_text("data")
        (var_dir / name).chmod(0o644)
    for folder in (var_dir, var_dir / "graphdb", var_dir / "graphdb" / "memoria"):
        folder.chmod(0o755)
    (var_dir / "graphdb" / "run.sh").write_text("#!/bin/sh\n")
    (var_dir / "graphdb" / "run.sh").chmod(0o755)
    assert len(_shared(var_dir)) == 7

    started = _manage(var_dir, "check")
    assert _shared(var_dir) == []
    assert stat.S_IMODE((var_dir / "graphdb" / "run.sh").stat().st_mode) == 0o700  # the owner keeps its bits
    assert f"made 4 file(s) and 3 folder(s) under {var_dir} private (0600/0700)" in started.stderr
    again = _manage(var_dir, "check")
    assert "private (0600/0700)" not in again.stderr  # nothing left to say


def test_the_graph_store_and_backups_are_private(
    db: None, graph_server: EmbeddedServer, settings: object, tmp_path: Path, group: str
) -> None:
    """The embedded server, started by this process (umask 077 since the settings loaded), writes its store
    privately, and a backup is private whatever folder it goes to."""
    data_dir = tmp_path / "graphdb"
    with dedicated_graph_server(graph_server, settings, data_dir):
        from memoria.graph.schema import schema_install

        schema_install()
        document = curation_document(group)
        load(group, nodes=document["nodes"], edges=document["edges"])
        out = tmp_path / "backups" / f"{group}.memoria-backup.gz"
        out.parent.mkdir()
        out.parent.chmod(0o755)
        call_command("backup", "--group", group, "--out", str(out), stdout=open(os.devnull, "w"))  # noqa: SIM115
        stored = [p for p in data_dir.rglob("*") if p.is_file()]
        assert len(stored) > 5, stored  # the store, its config and its log
        assert _shared(data_dir) == []
        assert stat.S_IMODE(out.stat().st_mode) == 0o600


@pytest.mark.parametrize("mode", [0o600, 0o400, 0o700])
def test_private_modes_are_left_as_they_are(tmp_path: Path, mode: int) -> None:
    from memoria.private_files import private_tree

    path = tmp_path / "root" / "file"
    path.parent.mkdir()
    path.parent.chmod(0o700)
    path.write_text("x")
    path.chmod(mode)
    assert private_tree(path.parent).files == 0
    assert stat.S_IMODE(path.stat().st_mode) == mode
