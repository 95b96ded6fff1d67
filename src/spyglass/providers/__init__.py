"""The floor under web search and the hosted readers: the adapter base both build on, one
bounded HTTP exchange, weighted routing, provider text made safe, and key masking.

Nothing here knows its users: :mod:`spyglass.search` and :mod:`spyglass.fetch.hosted` import
this package, never the reverse."""
