"""Ingestion: turning episodes into memory."""
