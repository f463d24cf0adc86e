"""Rewriters: they turn trees into edits; edits.apply is the single place text changes."""
