"""Downloading one public web page: the fetcher, robots.txt, paging, hosted readers, rendering.

:mod:`~spyglass.fetch.fetcher` (one fetch through :mod:`spyglass.net`'s guard, redirects and
caps: the page's bytes and media type), :mod:`~spyglass.fetch.page` (the page as
``web.fetch`` returns it, read), :mod:`~spyglass.fetch.robots`,
:mod:`~spyglass.fetch.paging` (parts of a long text), :mod:`~spyglass.fetch.hosted`
(readers that fetch for you) and :mod:`~spyglass.fetch.render` (a contained browser). What
a page says is :mod:`spyglass.extract`'s business: ``web.fetch`` downloads, then extracts.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spyglass.fetch.fetcher import FetchConfig, FetchedPage, Fetcher
    from spyglass.fetch.page import ReadPage
    from spyglass.fetch.paging import Part, part

#: Where each public name lives. Imported on first use (PEP 562), so importing paging does
#: not load httpx.
_HOMES = {
    "FetchConfig": "fetcher",
    "FetchedPage": "fetcher",
    "Fetcher": "fetcher",
    "Part": "paging",
    "ReadPage": "page",
    "part": "paging",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


__all__ = ["FetchConfig", "FetchedPage", "Fetcher", "Part", "ReadPage", "part"]
