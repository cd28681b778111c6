"""The REST API: thin DRF views over the engine's services."""

from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "memoria.api"
    label = "memoria_api"
