"""The one way in, below REST, the websocket and MCP: what the three faces share before a call reaches a service,
starting with the throttle policy (throttles.py)."""
