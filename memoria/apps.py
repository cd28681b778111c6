"""The `memoria` app itself: home of the management commands, and what the app does once at start."""

from django.apps import AppConfig
from django.conf import settings

from memoria.private_files import private_tree


class MemoriaConfig(AppConfig):
    name = "memoria"

    def ready(self) -> None:
        # Search declares its `ppr` method; PPR, which seeds itself from search, sits above it and registers the
        # runner. Imported here: the engine's modules load once the app registry is ready.
        from memoria.ppr.search_walk import search_walk_register

        search_walk_register()
        # What an older version or another tool left readable under var/ (and the graph data, wherever it is kept)
        # is made private before the process serves or writes anything (docs/operations.md, "Production checklist").
        private_tree(settings.VAR_DIR)
        data_dir = settings.MEMORIA_GRAPH["DATA_DIR"]
        if not data_dir.is_relative_to(settings.VAR_DIR):
            private_tree(data_dir)
