"""Spyglass: web search and fetch for a local AI assistant, with the owner in control."""

__version__ = "0.1.0"
