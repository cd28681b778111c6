"""The one way in, below REST, the websocket and MCP: the error table every face renders (problems.py) and the
throttle policy (throttles.py)."""
