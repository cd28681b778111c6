"""Hybrid search over the memory graph: methods (BM25, cosine, BFS), rerankers, configs and named recipes."""
