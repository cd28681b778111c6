"""What the MCP tools' input schemas tell an agent: the search recipes offered here, and only those."""

from __future__ import annotations

from memoria.mcp.inputs import SearchMemoryInput
from memoria.search.recipes import CROSS_ENCODER_RECIPES, RECIPES


def _listed_recipes() -> list[str]:
    return SearchMemoryInput.model_json_schema()["properties"]["recipe"]["anyOf"][0]["enum"]


def test_the_cross_encoder_recipes_are_listed_only_with_a_model(settings, tmp_path) -> None:
    settings.MEMORIA_CROSS_ENCODER_MODEL = ""
    assert _listed_recipes() == [name for name in RECIPES if name not in CROSS_ENCODER_RECIPES]
    settings.MEMORIA_CROSS_ENCODER_MODEL = str(tmp_path)
    assert _listed_recipes() == list(RECIPES)
