"""Parsers: they build trees and never edit."""
