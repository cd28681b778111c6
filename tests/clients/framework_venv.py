"""Scratch venvs for the framework packages (clients/<package>): each package pip-installed from the repository,
with its framework from PyPI, into a venv of its own, and a script run there against a real daphne.

The venv is kept under the test var dir, keyed by a hash of the package's pyproject.toml, the client's and the
Python version: the framework's install (the slow part: PyPI) is paid once, and again only when a dependency range
changes. The repository's packages (the framework package, and the client when it is built on it) are rebuilt and
reinstalled (without dependencies) at every call, so the venv always runs the sources as they are now.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import venv
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings

from tests.conftest import ROOT

CLIENTS = ROOT / "clients"
CLIENT = CLIENTS / "python"
INSTALL_TIMEOUT = 900  # seconds: a cold install from PyPI (llama-index-core brings a few dozen wheels)


def venv_key(package: str) -> str:
    """What the venv's installed dependencies depend on: both pyprojects and the interpreter's version."""
    digest = hashlib.sha256()
    for pyproject in (CLIENTS / package / "pyproject.toml", CLIENT / "pyproject.toml"):
        digest.update(pyproject.read_bytes())
    digest.update(sys.version.encode())
    return digest.hexdigest()[:16]


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One builder at a time per package (parallel sessions share the var dir's venvs)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _run(command: list[str | Path], *, timeout: float) -> None:
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"


def _sources(package: str) -> list[Path]:
    """The package, and the client when it is built on it (openai-agents-memoria is not: it speaks MCP, and the
    SDK's websockets<17 cannot sit beside the client's websockets 17)."""
    needs_client = "memoria-client" in (CLIENTS / package / "pyproject.toml").read_text()
    return [CLIENT, CLIENTS / package] if needs_client else [CLIENTS / package]


def _wheels(package: str, into: Path) -> list[Path]:
    """Wheels of the package (and the client it is built on), built by the project's pip and setuptools from
    copies of their sources (the scratch venv's bundled setuptools cannot build wheels without `wheel`; copies keep
    build/ and egg-info out of the repository)."""
    shutil.rmtree(into, ignore_errors=True)
    sources = _sources(package)
    for source in sources:
        copy = into / "src" / source.name
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns("*.egg-info", "__pycache__", "build"))
        build = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-index", "--no-deps", "--no-build-isolation"]
        _run([*build, "-w", str(into), str(copy)], timeout=300)
    wheels = sorted(into.glob("*.whl"))
    assert len(wheels) == len(sources), wheels
    return wheels


def framework_python(package: str) -> tuple[Path, dict[str, float]]:
    """The python of `package`'s venv, installed and current, and what it cost: `install_seconds` of the
    dependencies (0 when the cached venv was reused) and `refresh_seconds` of reinstalling the repository's two."""
    base = Path(settings.VAR_DIR) / "client-venvs"
    home = base / f"{package}-{venv_key(package)}"
    python = home / "venv" / "bin" / "python"
    ready = home / "ready.json"
    costs = {"install_seconds": 0.0, "refresh_seconds": 0.0}
    with _locked(base / f"{package}.lock"):
        wheels = _wheels(package, home / "wheels")
        if not ready.exists():
            for stale in base.glob(f"{package}-" + "?" * 16):  # venvs of earlier pyprojects: never used again
                if stale != home:
                    shutil.rmtree(stale, ignore_errors=True)
            started = time.monotonic()
            shutil.rmtree(home / "venv", ignore_errors=True)
            venv.EnvBuilder(with_pip=True).create(home / "venv")
            # From PyPI (the environment's pip configuration applies): the framework's core package and its deps.
            _run([python, "-m", "pip", "install", "--quiet", *map(str, wheels)], timeout=INSTALL_TIMEOUT)
            costs["install_seconds"] = round(time.monotonic() - started, 1)
            ready.write_text(json.dumps(costs))
        else:
            started = time.monotonic()
            refresh = [python, "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall"]
            _run([*refresh, *map(str, wheels)], timeout=300)
            costs["refresh_seconds"] = round(time.monotonic() - started, 1)
    return python, costs


def run_script(python: Path, script: Path, *args: str, timeout: float = 300) -> dict:
    """Run `script` by the venv's python, away from the repository (its sources must not be importable by
    accident), and return the one JSON object it prints."""
    run = subprocess.run(
        [python, str(script), *args],
        cwd=python.parent,
        env={"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp")},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return json.loads(run.stdout)
