"""Whole-group backups and restores: the graph and the curation audit trail in one checked file."""
