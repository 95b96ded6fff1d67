"""The commented ``config.toml`` that ``spyglass config init`` writes."""

from __future__ import annotations

TEMPLATE = """\
# Spyglass settings. Every key is optional; the value shown is the default.
# Environment variables override this file: SPYGLASS_<SECTION>__<KEY>, e.g.
# SPYGLASS_FETCH__REDIRECTS=all. `spyglass config show` prints the effective settings.

[search]
# One provider, or weighted: "searxng:70,duckduckgo:30"
# providers = "duckduckgo"
# fallback = []
# timeout_seconds = 10
# max_results = 10          # most results per search (1-20); caps what the model asks for
# snippet_chars = 500       # longest snippet per result

# [search.searxng]
# base_url = "http://127.0.0.1:8888"

# [search.brave]
# api_key = "..."

[fetch]
# providers = "direct"      # or a hosted reader: "firecrawl", "direct:70,firecrawl:30"
# fallback = []
# redirects = "same-site"   # none, same-site or all
# allow_domains = []
# deny_domains = []
# private_network = []    # e.g. ["wiki.home.arpa", "192.168.1.0/24"]
# https_only = false
# allowed_ports = []
# respect_robots = false
# max_chars = 20000
# timeout_seconds = 15

# [fetch.firecrawl]         # a hosted reader's key; defaults to [search.firecrawl]'s key
# api_key = "..."

[llm]
# base_url = "http://127.0.0.1:8080/v1"
# model = ""
# max_tool_rounds = 3

[server]
# host = "127.0.0.1"
# port = 8092

[history]
# enabled = true
# retention_days = 30

[channels.mcp]
# confirmation = "elicit"     # elicit or delegated

[channels.openwebui]
# confirmation = "off"        # off or delegated
"""
