"""`bench embeddings` with the real models: every backend timed beside torch in one process, and the paired
bootstrap it reports recall differences with."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from memoria.evaluation.crossval import paired_bootstrap


def test_every_backend_is_timed_beside_torch(tmp_path: Path) -> None:
    out = io.StringIO()
    call_command("bench", "embeddings", "--texts", "40", "--runs", "1", "--data-dir", str(tmp_path), stdout=out)
    lines = out.getvalue().splitlines()
    assert "timing 40 texts" in lines[1] and "load average" in lines[2] and "load average" in lines[3]
    rows = {line.split()[0]: line.split() for line in lines[4:] if line.strip()}
    assert rows["torch"][1] == "all-MiniLM-L6-v2" and rows["torch"][4] == "1.00"
    assert rows["onnx"][1] == "all-MiniLM-L6-v2" and rows["onnx-int8"][1] == "all-MiniLM-L6-v2+int8"
    assert rows["openvino"][1] == "all-MiniLM-L6-v2"
    assert all(
        float(rows[name][3]) > 0 and float(rows[name][5]) > 0 for name in ("torch", "onnx", "onnx-int8", "openvino")
    )
    assert rows["torch"][6] == "1.00"


def test_bad_options_are_command_errors(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="--backends: tensorflow not among torch, onnx, onnx-int8, openvino"):
        call_command("bench", "embeddings", "--backends", "tensorflow")
    with pytest.raises(CommandError, match="no such folder"):
        call_command("bench", "embeddings", "--data-dir", str(tmp_path / "missing"))


def test_paired_bootstrap_brackets_the_mean_difference() -> None:
    reference = [0.0, 1.0, 0.5, 1.0] * 25
    same = paired_bootstrap(reference, reference)
    assert (same.mean, same.low, same.high) == (0.0, 0.0, 0.0)
    found = paired_bootstrap([value + 0.1 for value in reference[:50]] + reference[50:], reference)
    assert found.mean == pytest.approx(0.05) and found.low is not None and found.high is not None
    assert 0 < found.low < found.mean < found.high
