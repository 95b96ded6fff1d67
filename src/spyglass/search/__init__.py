"""Web search: provider adapters, the shared HTTP client, result cleaning and routing.

Everything that names a provider lives in :mod:`spyglass.search.providers`; the rest of this
package works through the small :class:`~spyglass.search.provider.Provider` interface.
"""
