"""`loadtest`: websocket retrievals, REST searches and ingests against daphne processes (docs/loadtest.md)."""
