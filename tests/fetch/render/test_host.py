"""The warm browser: shared between renders, each render in a fresh context; launched again
after it went away."""

from __future__ import annotations

import pytest

from spyglass.fetch.render.host import HOST
from tests.fetch.render.support import SENTENCE, Site, needs_browser, shell_with
from tests.support.fetch_peers import Peer, page

pytestmark = [pytest.mark.browser, needs_browser]

WRITE = (
    "localStorage.setItem('secret', 'first-render');"
    "document.cookie = 'secret=first-render; path=/';"
    "document.getElementById('root').innerHTML = '<article><p>" + SENTENCE + "</p></article>';"
)
READ = (
    "const seen = 'storage=' + localStorage.getItem('secret') + ' cookie=' + document.cookie;"
    "document.getElementById('root').innerHTML ="
    " '<article><p>" + SENTENCE + " What this page found: ' + seen + '.</p></article>';"
)


async def test_renders_share_one_warm_browser_but_nothing_a_page_stored_survives() -> None:
    with Peer({"/write": page(shell_with(WRITE)), "/read": page(shell_with(READ))}) as peer:
        site = Site.of({"store.example.com": peer})
        first = await site.read("http://store.example.com/write")
        launches = HOST.launches
        second = await site.read("http://store.example.com/read")
    assert first.rendering is not None and first.rendering.rendered
    assert second.rendering is not None and second.rendering.rendered
    assert HOST.launches == launches  # the same browser ...
    assert "storage=null cookie=" in second.document.text  # ... a fresh context
    assert "first-render" not in second.document.text


async def test_a_browser_that_went_away_is_launched_again() -> None:
    with Peer({"/": page(shell_with(WRITE))}) as peer:
        site = Site.of({"again.example.com": peer})
        HOST.close()
        launches = HOST.launches
        read = await site.read("http://again.example.com/")
    assert read.rendering is not None and read.rendering.rendered
    assert SENTENCE in read.document.text
    assert HOST.launches == launches + 1
