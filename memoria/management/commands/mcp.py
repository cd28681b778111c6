"""`mcp`: serve the MCP tools over stdio to an agent that runs this command itself (its token in MEMORIA_TOKEN).

The token is the one the REST API takes (`memoria_token`); every tool call is checked against its user's role
and groups exactly as over HTTP. Without a valid token the command refuses to start.
"""

from __future__ import annotations

import os

from django.core.management.base import BaseCommand, CommandError

from memoria.mcp.auth import TOKEN_VARIABLE, user_for_token
from memoria.mcp.server import build_server


class Command(BaseCommand):
    help = f"Serve Memoria's MCP tools over stdio; the caller's API token comes from {TOKEN_VARIABLE}."

    def handle(self, *args: object, **options: object) -> None:
        key = os.environ.get(TOKEN_VARIABLE, "").strip()
        if not key:
            raise CommandError(f"set {TOKEN_VARIABLE} to your API token (manage.py memoria_token prints one)")
        if user_for_token(key) is None:
            raise CommandError(f"{TOKEN_VARIABLE} is not a valid token of an active user")
        # stdout carries the protocol from here on: anything else goes to stderr (logs already do).
        build_server(stdio_token=key).run("stdio")
