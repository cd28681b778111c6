"""Curation: a curator's hand edits of the memory graph, each one validated, audited, undoable and broadcast."""
