"""A group's memory graph held in memory as CSR arrays: the projection PPR and activation's view engine walk.

Loaded from the server in bulk, updated from version stamps after small writes, shared by the process's cache;
the transition matrices of the walk are built once per projection.
"""
