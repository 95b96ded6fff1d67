"""Spyglass as an MCP server: ``web_search`` and ``web_fetch`` for every MCP host.

Kept free of imports so the CLI can name hosts and ports without loading the MCP SDK.
"""
