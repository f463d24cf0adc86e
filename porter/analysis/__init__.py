"""Shared facts about a parsed file that several rules read (one computation per file)."""
