"""Retrieval quality on real datasets: recall@k of the memory's searches beside a plain dense baseline."""
