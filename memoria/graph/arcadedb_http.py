"""A small client for ArcadeDB's HTTP API: readiness checks, database reset and the SQL-only index DDL.

Bolt carries the queries; HTTP is needed only for what ArcadeDB's Cypher refuses.
"""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from memoria.errors import GraphUnavailable


@dataclass(frozen=True)
class ArcadeHttp:
    host: str
    port: int
    user: str
    password: str
    database: str
    timeout: float = 10.0

    def _post(self, path: str, body: dict[str, Any], *, timeout: float | None = None) -> dict[str, Any]:
        request = urllib.request.Request(
            f"http://{self.host}:{self.port}{path}",
            data=json.dumps(body).encode(),
            method="POST",
            headers={
                "Content-Type": "application/json",
                "Authorization": "Basic " + base64.b64encode(f"{self.user}:{self.password}".encode()).decode(),
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout or self.timeout) as response:  # noqa: S310 - http URL built here
                return json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            detail = error.read()[:500].decode(errors="replace")
            raise GraphUnavailable(f"ArcadeDB HTTP {path} answered {error.code}: {detail}") from error
        except (urllib.error.URLError, OSError, TimeoutError) as error:
            raise GraphUnavailable(f"ArcadeDB HTTP API at {self.host}:{self.port} unreachable: {error}") from error

    def ping(self, *, timeout: float = 2.0) -> bool:
        """True when the server answers a query on our database (the readiness test)."""
        try:
            answer = self._post(
                f"/api/v1/query/{self.database}",
                {"language": "cypher", "command": "RETURN 1 AS ready"},
                timeout=timeout,
            )
        except GraphUnavailable:
            return False
        return answer.get("result") == [{"ready": 1}]

    def sql(self, command: str) -> list[dict[str, Any]]:
        """Run one SQL command (index DDL); the caller builds it only from allow-listed names."""
        return self._post(f"/api/v1/command/{self.database}", {"language": "sql", "command": command}).get("result", [])

    def server_command(self, command: str) -> None:
        self._post("/api/v1/server", {"command": command})

    def recreate_database(self) -> None:
        """Drop and create the database: the fast way to give a test run an empty graph."""
        try:
            self.server_command(f"drop database {self.database}")
        except GraphUnavailable as error:
            if "not" not in str(error).lower() or "exist" not in str(error).lower():
                raise
        self.server_command(f"create database {self.database}")
