"""The `memoria` app itself: home of the management commands."""

from django.apps import AppConfig


class MemoriaConfig(AppConfig):
    name = "memoria"
