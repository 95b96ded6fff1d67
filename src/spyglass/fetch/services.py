"""The seams of ``web.fetch`` that front ends and tests can replace.

Production builds the system resolver and dialler; a test (of this package or of the HTTP
and MCP front ends) provides its own through ``runtime.services.provide(RESOLVER, ...)``
to reach loopback servers that stand in for public sites.
"""

from __future__ import annotations

import ssl

from spyglass.core.context import ServiceKey
from spyglass.fetch.dialler import Dialler, SystemDialler
from spyglass.fetch.resolver import Resolver, SystemResolver

RESOLVER: ServiceKey[Resolver] = ServiceKey("fetch.resolver", lambda _settings: SystemResolver())
DIALLER: ServiceKey[Dialler] = ServiceKey("fetch.dialler", lambda _settings: SystemDialler())
#: ``None`` means the default trust store (certifi); tests provide a context that trusts
#: their own test certificate authority.
SSL_CONTEXT: ServiceKey[ssl.SSLContext | None] = ServiceKey(
    "fetch.ssl_context", lambda _settings: None
)
