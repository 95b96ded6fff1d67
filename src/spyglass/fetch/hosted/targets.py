"""The local rules a URL must pass before it is handed to a hosted reader.

Once the URL leaves this machine, Spyglass can no longer check the address actually
dialled: the reader resolves the name and follows redirects inside its own boundary. So
every check that needs no network is made here, and stricter than for a direct fetch:
https only, no user name or password, the standard port, no IP address in any spelling, no
``localhost``, no single-label or local-suffix name, no all-numeric last label, and the
owner's allow and deny lists.
"""

from __future__ import annotations

from spyglass.net.errors import TargetRejected, private_address
from spyglass.net.guard import guard_from_settings
from spyglass.settings import FetchSettings

#: Suffixes refused by name for readers on top of the guard's own table.
READER_LOCAL_SUFFIXES = (".home", ".lan", ".corp", ".private")
HTTPS_PORT = 443


def check_for_reader(url: str, settings: FetchSettings) -> None:
    """Raise :class:`TargetRejected` unless ``url`` may be given to a hosted reader."""
    guard = guard_from_settings(
        https_only=True,
        allowed_ports=settings.allowed_ports,
        allow_domains=settings.allow_domains,
        deny_domains=settings.deny_domains,
    )
    try:
        target = guard.check(url)
    except TargetRejected as refused:
        if refused.reason == "scheme" and url.lower().startswith("http:"):
            raise TargetRejected(
                "scheme",
                "only https addresses are given to a hosted reader (fetch.providers); "
                "use the https address of the page",
            ) from None
        raise
    if target.address is not None:
        raise TargetRejected(
            "malformed_url",
            "a hosted reader is only given host names, never IP addresses; use the site's name",
        )
    if target.port != HTTPS_PORT:
        raise TargetRejected(
            "port",
            f"a hosted reader is only given addresses on the standard https port, not "
            f"{target.port}",
        )
    if target.host.endswith(READER_LOCAL_SUFFIXES):
        # A hosted reader is never given a local name, opened or not.
        raise private_address(openable=False)
