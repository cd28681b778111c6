"""A client generated from the OpenAPI schema by a standard generator has a typed model for each request body.

Issue 17: clients should be generated, not hand-written, so every POST/PATCH body must reach the schema as a
model (a $ref, or an object with properties), never as a bare `object`. The bodies still untyped are listed
below by name: the list may only shrink, and the test fails when a listed body becomes typed without leaving it.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer

# The models the curation bodies are generated into, with a valid request for each.
TYPED_REQUESTS: dict[str, dict[str, Any]] = {
    "EntityMerge": {"from": "e-1", "version": "ab12"},
    "EdgeInvalidation": {"invalid_at": "2026-03-01T09:00:00+00:00"},
    "EdgePatch": {"weight": 0.5, "tags": ["home"]},
    "ContextRequest": {"group": "g1", "query": "coffee", "budget_tokens": 500},
    "CommunityBuild": {"algorithm": "leiden", "resolution": 0.8},
    "IndexEdgeInput": {"source": "e-1", "target": "e-2", "relation": "cites", "weight": 0.7, "metadata": {"fact": "f"}},
    "SearchBody": {"query": "coffee", "group": "g1", "config": {"facts": {"methods": ["bm25", "cosine"], "limit": 5}}},
    "ActivationBody": {"group": "g1", "seeds": [{"id": "e-1", "score": 1.0}], "params": {"max_depth": 3}},
    "PprBody": {"group": "g1", "seeds": [{"id": "e-1", "weight": 0.5}], "top_k": 5, "damping": 0.85},
    "EdgeCreate": {"source": "e-1", "target": "e-2", "relation": "works_at", "weight": 0.5, "tags": ["work"]},
    "EpisodeBody": {"content": "the pallets arrived", "source": "message", "valid_at": "2024-03-13T15:30:00+00:00"},
    "GraphDocumentBody": {
        "nodes": [{"id": "a", "name": "Alpha", "labels": ["Entity"], "properties": {"rank": 1}}],
        "edges": [{"source": "a", "target": "b", "relation": "feeds", "weight": 0.5, "tags": ["x"]}],
        "mentions": [{"episode": "ep", "entity": "a"}],
    },
}


def _schema() -> dict[str, Any]:
    document = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(document, renderer_context={}))


def test_a_generated_client_builds_a_typed_request_for_each_body_model(tmp_path: Path) -> None:
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(json.dumps(_schema()))
    generator = Path(sys.executable).with_name("openapi-python-client")
    if not generator.exists():
        pytest.fail("openapi-python-client is not installed: run scripts/bootstrap test")
    subprocess.run(
        [str(generator), "generate", "--path", str(schema_file), "--output-path", str(tmp_path / "client")],
        check=True,
        capture_output=True,
        timeout=300,
    )
    package = next(p for p in (tmp_path / "client").iterdir() if (p / "__init__.py").exists())
    sys.path.insert(0, str(package.parent))
    try:
        models = importlib.import_module(f"{package.name}.models")
        for name, body in TYPED_REQUESTS.items():
            model = getattr(models, name)
            request = model.from_dict(body)
            assert request.to_dict() == body, name
    finally:
        sys.path.remove(str(package.parent))
