"""Ingestion: turning episodes into memory, and keeping what is stored searchable."""
