"""What a fetch says about rendering: whether it happened, and whom the page contacted."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rendering:
    """Carried by a fetched page when rendering was considered and is worth saying."""

    rendered: bool
    #: Hosts other than the page's own that the rendered page sent requests to.
    other_hosts: tuple[str, ...] = ()
    #: Requests the page made that were sent, and those refused (guard, limits, types).
    requests: int = 0
    refused: int = 0
    #: Said to the model and the person when rendering was wanted but did not happen.
    note: str | None = None
