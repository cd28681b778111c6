"""The browser side: pages and websocket consumers, thin over the engine."""

from django.apps import AppConfig


class ExplorerConfig(AppConfig):
    name = "explorer"
