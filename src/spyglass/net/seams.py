"""The seams of ``web.fetch`` that front ends and tests can replace.

Production builds the system resolver and dialler; a test (of this package or of the HTTP
and MCP front ends) provides its own through ``runtime.seams.provide(RESOLVER, ...)``
to reach loopback servers that stand in for public sites.
"""

from __future__ import annotations

import ssl

from spyglass.core.context import SeamKey
from spyglass.net.dialler import Dialler, SystemDialler
from spyglass.net.resolver import Resolver, SystemResolver

RESOLVER: SeamKey[Resolver] = SeamKey("fetch.resolver", lambda _settings: SystemResolver())
DIALLER: SeamKey[Dialler] = SeamKey("fetch.dialler", lambda _settings: SystemDialler())
#: ``None`` means the default trust store (certifi); tests provide a context that trusts
#: their own test certificate authority.
SSL_CONTEXT: SeamKey[ssl.SSLContext | None] = SeamKey("fetch.ssl_context", lambda _settings: None)
