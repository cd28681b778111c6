"""OpenAPI component names that stay unique when views nest serializers with the same short name."""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema


class MemoriaAutoSchema(AutoSchema):
    """Views declare their bodies as nested `Input`/`Output` serializers; the view's name keeps them apart."""

    def get_serializer_name(self, serializer: Any, direction: str) -> str:
        name = super().get_serializer_name(serializer, direction)
        owner, _, short = type(serializer).__qualname__.rpartition(".")
        if owner and name == short:
            return owner.removesuffix("View") + short
        return name
