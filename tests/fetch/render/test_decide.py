"""``fetch.render``: a script shell is rendered and read; a static page is not rendered;
without a browser ``auto`` reads statically and says so, ``always`` fails clearly; the
render's bounds end endless scripts, memory bombs and request floods."""

from __future__ import annotations

import time

import pytest

from spyglass.errors import CapabilityError
from spyglass.fetch.fetcher import FetchConfig
from spyglass.fetch.render.limits import RenderLimits
from spyglass.fetch.render.renderer import RENDER_UNAVAILABLE
from spyglass.net.addresses import parse_address
from spyglass.net.guard import Guard
from spyglass.net.private import PrivateNetwork
from tests.fetch.render.support import (
    APP_JS,
    SENTENCE,
    SHELL,
    Site,
    needs_browser,
    script,
    shell_with,
)
from tests.support.fetch_peers import Peer, page

pytestmark = [pytest.mark.browser, needs_browser]

STATIC = (
    "<html><head><title>Otters</title></head><body><article><h1>How otters use tools</h1>"
    + f"<p>{SENTENCE}</p>" * 6
    + '</article><script src="/analytics.js"></script></body></html>'
)


async def test_a_page_whose_text_exists_only_after_a_script_runs_is_read() -> None:
    with Peer({"/": page(SHELL), "/app.js": script(APP_JS)}) as peer:
        site = Site.of({"otters.example.com": peer})
        read = await site.read("http://otters.example.com/")
    assert "How otters use tools" in read.document.text
    assert read.document.text.count("Sea otters crack open shellfish") >= 1
    assert "enable JavaScript" not in read.document.text
    assert read.rendering is not None and read.rendering.rendered is True
    assert read.rendering.other_hosts == ()
    # The document came from the static read; only the script was fetched for the render.
    assert peer.requests == {"/": 1, "/app.js": 1}


async def test_a_shell_that_mounts_nowhere_known_is_rendered_and_read() -> None:
    # No application root, no framework, no <noscript>: a body showing only "Loading…"
    # whose script builds the article into the body itself.
    shell = (
        "<!doctype html><html><head><title>Otters</title></head><body>"
        '<div class="spinner">Loading…</div><script src="/build.js"></script></body></html>'
    )
    build = APP_JS.replace(
        "const root = document.getElementById('root');", "const root = document.body;"
    )
    with Peer({"/": page(shell), "/build.js": script(build)}) as peer:
        site = Site.of({"otters.example.com": peer})
        read = await site.read("http://otters.example.com/")
    assert read.rendering is not None and read.rendering.rendered is True
    assert "How otters use tools" in read.document.text
    assert SENTENCE in read.document.text


async def test_a_page_that_reads_fine_statically_is_not_rendered_in_auto() -> None:
    with Peer({"/": page(STATIC), "/analytics.js": script("")}) as peer:
        site = Site.of({"otters.example.com": peer})
        read = await site.read("http://otters.example.com/")
    # Not even considered for rendering: no browser, no request for its script.
    assert read.rendering is None
    assert peer.requests == {"/": 1}
    assert SENTENCE in read.document.text


async def test_always_renders_even_a_page_that_reads_fine_statically() -> None:
    with Peer({"/": page(STATIC), "/analytics.js": script("")}) as peer:
        site = Site.of({"otters.example.com": peer})
        read = await site.read("http://otters.example.com/", "always")
    assert read.rendering is not None and read.rendering.rendered is True
    assert peer.requests == {"/": 1, "/analytics.js": 1}


async def test_without_a_browser_auto_reads_statically_and_says_so() -> None:
    missing = RenderLimits(browser_path="/nonexistent/chromium")
    with Peer({"/": page(SHELL), "/app.js": script(APP_JS)}) as peer:
        site = Site.of({"otters.example.com": peer})
        read = await site.read("http://otters.example.com/", "auto", missing)
    assert read.rendering is not None and read.rendering.rendered is False
    assert read.rendering.note is not None and "no browser" in read.rendering.note
    # The page as sent: its title, and no article (its one line asks for JavaScript).
    assert read.document.title == "Otters"
    assert SENTENCE not in read.document.text
    assert peer.requests == {"/": 1}


async def test_without_a_browser_always_fails_with_a_clear_code() -> None:
    missing = RenderLimits(browser_path="/nonexistent/chromium")
    with Peer({"/": page(SHELL)}) as peer:
        site = Site.of({"otters.example.com": peer})
        with pytest.raises(CapabilityError) as caught:
            await site.read("http://otters.example.com/", "always", missing)
    assert caught.value.code == RENDER_UNAVAILABLE
    assert "fetch.browser_path" in caught.value.message


async def test_same_site_rendering_never_contacts_another_site_and_any_lists_it() -> None:
    js = (
        "fetch('http://tracker.example.org/collect').catch(() => {});"
        "fetch('/more.txt').then(r => r.text()).then(t => {"
        "document.getElementById('root').innerHTML = '<article>' + t + '</article>'; });"
    )
    more = " ".join([SENTENCE] * 6)
    with (
        Peer({"/": page(shell_with(js)), "/more.txt": page(more, "text/plain")}) as peer,
        Peer({"*": page("ok", "text/plain")}) as tracker,
    ):
        site = Site.of({"news.example.com": peer, "tracker.example.org": tracker})
        same = await site.read("http://news.example.com/")
        assert tracker.connections == 0
        anywhere = await site.read("http://news.example.com/", limits=RenderLimits(hosts="any"))
        assert tracker.connections >= 1
    assert same.rendering is not None and same.rendering.other_hosts == ()
    assert same.rendering.refused >= 1
    assert "Sea otters crack open shellfish" in same.document.text
    assert anywhere.rendering is not None
    assert anywhere.rendering.other_hosts == ("tracker.example.org",)


async def test_an_endless_script_ends_at_the_render_deadline() -> None:
    with Peer({"/": page(shell_with("while (true) {}"))}) as peer:
        site = Site.of({"spin.example.com": peer})
        started = time.monotonic()
        read = await site.read("http://spin.example.com/", limits=RenderLimits(timeout_seconds=4))
        seconds = time.monotonic() - started
        with pytest.raises(CapabilityError) as caught:
            await site.read("http://spin.example.com/", "always", RenderLimits(timeout_seconds=4))
    assert seconds < 4 + 8  # the deadline, plus closing the stuck browser
    assert read.rendering is not None and read.rendering.rendered is False
    assert read.rendering.note is not None
    assert caught.value.code == "TIMEOUT"


async def test_a_memory_bomb_crashes_only_its_own_tab_within_the_heap_limit() -> None:
    bomb = "const hoard = []; while (true) { hoard.push(new Array(1e6).fill(Math.random())); }"
    with Peer({"/": page(shell_with(bomb))}) as peer:
        site = Site.of({"bomb.example.com": peer})
        started = time.monotonic()
        with pytest.raises(CapabilityError) as caught:
            await site.read(
                "http://bomb.example.com/",
                "always",
                RenderLimits(timeout_seconds=20, max_heap_mb=64),
            )
        seconds = time.monotonic() - started
    assert caught.value.code in {"FETCH_RENDER_FAILED", "TIMEOUT"}
    assert seconds < 20 + 8


async def test_a_request_flood_is_cut_at_the_request_limit() -> None:
    flood = (
        "for (let i = 0; i < 1000; i++) { fetch('/item/' + i).catch(() => {}); }"
        "document.getElementById('root').innerHTML = '<article><p>" + SENTENCE + "</p></article>';"
    )
    with Peer({"/": page(shell_with(flood)), "*": page("x", "text/plain")}) as peer:
        site = Site.of({"flood.example.com": peer})
        started = time.monotonic()
        read = await site.read(
            "http://flood.example.com/", limits=RenderLimits(max_requests=20, timeout_seconds=20)
        )
        seconds = time.monotonic() - started
    # Whether the render finished or its deadline ended it (on a slow machine a thousand
    # refusals take a while), no more than the limit went out, and it ended in time.
    rendering = read.rendering
    assert rendering is not None
    assert rendering.requests <= 20
    assert sum(peer.requests.values()) <= 1 + 20
    if rendering.rendered:
        assert rendering.refused >= 1000 - 20
    else:
        assert rendering.note is not None
    assert seconds < 20 + 8


async def test_a_page_over_the_byte_limit_gets_no_more_bytes() -> None:
    big = "x" * 200_000
    # The article is written first, so what the page shows does not depend on how many of
    # the later requests a loaded machine gets to before the page is quiet. Then one
    # request after another: once the budget is spent, the next is not even sent.
    js = (
        "document.getElementById('root').innerHTML = '<article><p>" + SENTENCE + "</p></article>';"
        "(async () => { for (const n of [1, 2, 3, 4, 5]) {"
        " try { await (await fetch('/big/' + n)).text(); } catch (e) {} }"
        " })();"
    )
    with Peer({"/": page(shell_with(js)), "*": page(big, "text/plain")}) as peer:
        site = Site.of({"bytes.example.com": peer})
        read = await site.read("http://bytes.example.com/", limits=RenderLimits(max_bytes=300_000))
    assert read.rendering is not None and read.rendering.rendered is True
    # At least the request after the budget was refused; how many more the page made before
    # it fell quiet depends on the machine's load, not on the limit.
    assert read.rendering.refused >= 1
    assert sum(n for path, n in peer.requests.items() if path.startswith("/big/")) == 2
    assert SENTENCE in read.document.text


async def test_a_home_host_the_owner_opened_is_never_reached_by_another_pages_scripts() -> None:
    js = "fetch('http://10.1.2.3/admin').catch(() => {});" + APP_JS
    opened = FetchConfig(guard=Guard(private=PrivateNetwork.parse(["10.1.2.3/32"])))
    with Peer({"/": page(shell_with(js))}) as peer, Peer({"*": page("nas")}) as nas:
        site = Site.of({"otters.example.com": peer})
        site.dialler.routes[parse_address("10.1.2.3")] = nas.address
        read = await site.read(
            "http://otters.example.com/",
            limits=RenderLimits(hosts="any", timeout_seconds=60),
            config=opened,
        )
    assert read.rendering is not None and read.rendering.rendered is True
    assert read.rendering.refused >= 1
    assert nas.connections == 0
    assert "How otters use tools" in read.document.text


async def test_a_page_past_the_element_limit_is_not_read() -> None:
    grow = "for (let i = 0; i < 5000; i++) document.body.appendChild(document.createElement('i'));"
    with Peer({"/": page(shell_with(grow))}) as peer:
        site = Site.of({"dom.example.com": peer})
        small = RenderLimits(max_dom_nodes=1000, timeout_seconds=60)
        kept = await site.read("http://dom.example.com/", "auto", small)
        with pytest.raises(CapabilityError) as caught:
            await site.read("http://dom.example.com/", "always", small)
    assert kept.rendering is not None and kept.rendering.rendered is False
    assert kept.rendering.note is not None and "1,000 elements" in kept.rendering.note
    assert caught.value.code == "FETCH_TOO_LARGE"
