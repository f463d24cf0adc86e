"""Mapping tables: loading, validation and look-up (data lives in the top-level mappings/)."""
