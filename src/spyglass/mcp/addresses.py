"""Where the Streamable HTTP server listens: loopback, a default port, one path."""

from __future__ import annotations

LOOPBACK = "127.0.0.1"
DEFAULT_HTTP_PORT = 8093
MCP_PATH = "/mcp"


def endpoint_url(port: int) -> str:
    return f"http://{LOOPBACK}:{port}{MCP_PATH}"
