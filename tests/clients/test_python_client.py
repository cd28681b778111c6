"""The Python client (clients/python), pip-installed into a scratch venv and run there against a real daphne: typed
search hits, NotFound without a retry, a 429 waited out after its Retry-After (and raised past the bound), a streamed
retrieval of typed events ending in retrieval_finished, and cancel."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import sysconfig
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest
import websockets

from memoria.accounts.roles import Role
from memoria.accounts.services import token_for, user_grant
from tests.conftest import ROOT, running_daphne
from tests.retrieval.test_activation import load, random_graph

pytestmark = pytest.mark.django_db(transaction=True)
CLIENT = ROOT / "clients" / "python"
SCRIPT = Path(__file__).with_name("client_script.py")


@pytest.fixture(scope="module")
def scratch_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv (no system or project site-packages) with the client pip-installed from a copy of its sources.

    Offline: no index. The one dependency, websockets, is the
    project's installed copy, made visible by a .pth line naming a folder that holds only it — so pip finds the
    requirement satisfied, and memoria_client can only come from the scratch venv's own site-packages.
    """
    root = tmp_path_factory.mktemp("client-venv")
    venv.EnvBuilder(with_pip=True).create(root / "venv")
    python = root / "venv" / "bin" / "python"
    deps = root / "deps"
    deps.mkdir()
    installed = Path(websockets.__file__).parent
    for item in [installed, *installed.parent.glob("websockets-*.dist-info")]:
        (deps / item.name).symlink_to(item)
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(site) / "project-deps.pth").write_text(f"{deps}\n")
    source = root / "source"
    shutil.copytree(CLIENT, source, ignore=shutil.ignore_patterns("*.egg-info", "__pycache__", "build"))
    # The wheel is built by the project's pip and setuptools (the scratch venv's bundled setuptools cannot build
    # wheels without the `wheel` package), then installed by the scratch venv's own pip.
    wheels = root / "wheels"
    build = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-index", "--no-deps", "--no-build-isolation"]
    done = subprocess.run([*build, "-w", str(wheels), str(source)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    wheel = next(wheels.glob("memoria_client-*.whl"))
    install = [python, "-m", "pip", "install", "--quiet", "--no-index", str(wheel)]
    done = subprocess.run(install, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert sysconfig.get_paths()["purelib"] != site
    return python


@pytest.fixture
def throttled_daphne(tmp_path: Path) -> Iterator[str]:
    """A daphne of its own whose searches are limited to one a second (tests/clients/throttled_settings.py)."""
    settings_module = {"DJANGO_SETTINGS_MODULE": "tests.clients.throttled_settings"}
    with running_daphne(tmp_path / "daphne.log", wait_seconds=60, **settings_module) as port:
        yield f"http://127.0.0.1:{port}"


def test_installed_client_against_daphne(scratch_python: Path, throttled_daphne: str, group: str) -> None:
    nodes, edges = random_graph(random.Random(5), 40, 160)
    load(group, nodes, edges)
    hidden = f"{group}-hidden"
    load(hidden, ["n1"], [])
    token = token_for(user=user_grant(username="client-agent", role=Role.VIEWER, groups=[group]))

    run = subprocess.run(
        [scratch_python, str(SCRIPT), throttled_daphne, token, group, f"{group}-n0", hidden],
        cwd=scratch_python.parent,  # not the repository: its sources must not be importable by accident
        env={"PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    seen = json.loads(run.stdout)

    assert seen["module"].startswith(str(scratch_python.parent.parent)) and "site-packages" in seen["module"]
    assert seen["groups"] == [group]

    assert seen["events"][0] == "RetrievalStarted" and seen["first_group"] == group
    assert seen["events"][-1] == "RetrievalFinished" and seen["last"] == {
        "type": "retrieval_finished",
        "status": "completed",
    }
    assert {"SeedStarted", "LevelExpanded", "PathCompleted", "SeedFinished"} <= set(seen["events"])
    assert "Event" not in seen["events"]  # every documented type arrives typed
    assert seen["cancelled"] in ("cancelled", "completed")  # a fast machine may finish first
    assert seen["cancel_again"] == "unknown_retrieval"

    assert seen["hits"], "the search found nothing"
    assert all(
        hit["class"] == "SearchHit" and hit["group"] == group and hit["id"].startswith(group) for hit in seen["hits"]
    )
    assert [status for status, _ in seen["throttled_retries"]] == [429]
    wait = seen["throttled_retries"][0][1]
    assert wait == 1.0 and seen["throttled_seconds"] >= wait
    assert seen["bounded"] == {"status": 429, "code": "throttled", "retry_after": 1.0}

    assert seen["hidden"]["status"] == 404 and seen["hidden"]["retries"] == 0
