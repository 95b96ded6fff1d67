"""What a render may do: the owner's ``fetch.render*`` settings as one value."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from spyglass.settings import FetchSettings

HostsMode = Literal["same-site", "any"]

#: The settings' own defaults: the one place they are written is the settings model.
_DEFAULTS = FetchSettings()


@dataclass(frozen=True)
class RenderLimits:
    """Bounds on one render; every one of them ends the render or refuses a request."""

    timeout_seconds: float = _DEFAULTS.render_timeout_seconds
    max_bytes: int = _DEFAULTS.render_max_bytes
    max_requests: int = _DEFAULTS.render_max_requests
    max_dom_nodes: int = _DEFAULTS.render_max_dom_nodes
    max_heap_mb: int = _DEFAULTS.render_max_heap_mb
    hosts: HostsMode = _DEFAULTS.render_hosts
    browser_path: str = _DEFAULTS.browser_path

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
