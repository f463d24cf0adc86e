"""Portability rules. Each module holds one family and registers its rules."""
