"""Graph documents in and out of the store, and the vector contract every write keeps (reindex.py)."""
