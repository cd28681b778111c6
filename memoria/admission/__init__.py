"""The one way in, below REST, the websocket and MCP: the error table every face renders (problems.py), the
throttle policy (throttles.py), admitting a call made outside DRF (calls.py), and what two faces would otherwise
each write: running a retrieval to its answer (retrieval.py) and taking an episode batch (episodes.py).
"""
