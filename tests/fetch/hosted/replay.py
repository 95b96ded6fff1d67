"""Asking one hosted reader, reached at a replaying loopback server, through the shared code."""

from __future__ import annotations

from typing import Any

from spyglass.capabilities.fetch import extract
from spyglass.fetch.hosted import READERS
from spyglass.fetch.hosted.dispatch import read
from spyglass.fetch.page import ReadPage
from spyglass.settings import Settings
from tests.search.replay import SECRET, ReplayServer

PAGE_URL = "https://news.example.com/story"


def reader_settings(name: str, server: ReplayServer, **fetch: Any) -> Settings:
    """Settings with ``fetch.<name>`` pointed at ``server`` and keyed with :data:`SECRET`."""
    return Settings.model_validate(
        {"fetch": {"providers": name, name: {"base_url": server.url, "api_key": SECRET}, **fetch}}
    )


async def read_page(
    name: str, server: ReplayServer, url: str = PAGE_URL, *, timeout: float = 5, **fetch: Any
) -> ReadPage:
    settings = reader_settings(name, server, **fetch)
    return await read(READERS[name], url, settings, timeout=timeout, extract=extract)
