"""What a render may do: the owner's ``fetch.render*`` settings as one value."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from spyglass.settings import FetchSettings

HostsMode = Literal["same-site", "any"]


@dataclass(frozen=True)
class RenderLimits:
    """Bounds on one render; every one of them ends the render or refuses a request."""

    timeout_seconds: float = 10.0
    max_bytes: int = 10_000_000
    max_requests: int = 100
    max_dom_nodes: int = 100_000
    max_heap_mb: int = 256
    hosts: HostsMode = "same-site"
    browser_path: str = ""

    @classmethod
    def from_settings(cls, settings: FetchSettings) -> RenderLimits:
        return cls(
            timeout_seconds=settings.render_timeout_seconds,
            max_bytes=settings.render_max_bytes,
            max_requests=settings.render_max_requests,
            max_dom_nodes=settings.render_max_dom_nodes,
            max_heap_mb=settings.render_max_heap_mb,
            hosts=settings.render_hosts,
            browser_path=settings.browser_path,
        )
