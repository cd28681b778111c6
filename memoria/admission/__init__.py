"""The one way in, below REST, the websocket and MCP: the error table every face renders (problems.py), the
throttle policy (throttles.py), admitting a call that comes without DRF's machinery (calls.py), and running a
retrieval to its answer (retrieval.py), which REST and MCP would otherwise each write.
"""
