"""The pure core: capabilities, registry, executor, policy, confirmation and audit.

Nothing in this package imports a web framework, the MCP SDK or CLI code; every front end
depends on it, never the reverse (a test enforces this).
"""
