"""The warm browser: shared between renders, each render in a fresh context; launched again
after it went away."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import time
from pathlib import Path

import pytest

from spyglass.errors import CapabilityError
from spyglass.fetch.render.host import HOST
from spyglass.fetch.render.limits import RenderLimits
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


#: Ten million pushState calls in one task: the tab never yields, and the browser process
#: drowns in navigation-state updates.
PUSH_STATE_LOOP = "let i = 0; while (true) { history.pushState({n: i}, '', '/p?' + (i++)); }"


async def test_a_render_that_hits_its_deadline_kills_its_browser_and_the_next_one_renders() -> None:
    pages = {"/spin": page(shell_with(PUSH_STATE_LOOP)), "/ok": page(shell_with(WRITE))}
    with Peer(pages) as peer:
        site = Site.of({"wedge.example.com": peer})
        warm = await site.read("http://wedge.example.com/ok")
        assert warm.rendering is not None and warm.rendering.rendered
        wedged = HOST.browser_pid
        assert wedged is not None and running(wedged)
        started = time.monotonic()
        with pytest.raises(CapabilityError) as caught:
            await site.read("http://wedge.example.com/spin", "always", RenderLimits(3))
        seconds = time.monotonic() - started
        # The browser's whole process group is gone, not kept warm for the next render.
        assert group_ends_within(wedged, 5)
        started = time.monotonic()
        after = await site.read("http://wedge.example.com/ok", limits=RenderLimits(10))
        next_seconds = time.monotonic() - started
    assert caught.value.code == "TIMEOUT"
    assert seconds < 3 + 2  # the deadline, plus killing the browser
    assert after.rendering is not None and after.rendering.rendered
    assert SENTENCE in after.document.text
    assert next_seconds < 10
    assert HOST.browser_pid not in (None, wedged)


async def test_a_warm_browser_that_does_not_answer_is_killed_and_launched_again() -> None:
    with Peer({"/": page(shell_with(WRITE))}) as peer:
        site = Site.of({"stuck.example.com": peer})
        await site.read("http://stuck.example.com/")
        stuck = HOST.browser_pid
        assert stuck is not None
        launches = HOST.launches
        # A stopped browser is connected but answers nothing, as a wedged one does.
        os.killpg(stuck, signal.SIGSTOP)
        try:
            read = await site.read("http://stuck.example.com/", limits=RenderLimits(20))
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(stuck, signal.SIGCONT)
    assert read.rendering is not None and read.rendering.rendered
    assert SENTENCE in read.document.text
    assert HOST.launches == launches + 1
    assert group_ends_within(stuck, 5)


def running(group: int) -> list[int]:
    """The processes of the process group ``group`` that still run (zombies aside)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[-1].split()
        except OSError:
            continue
        # After the command name: state, parent, process group.
        if int(fields[2]) == group and fields[0] not in ("Z", "X"):
            members.append(int(stat.parent.name))
    return members


def group_ends_within(group: int, seconds: float) -> bool:
    """Wait (on process descriptors, with a deadline) until no process of ``group`` runs."""
    deadline = time.monotonic() + seconds
    while members := running(group):
        for pid in members:
            try:
                descriptor = os.pidfd_open(pid)
            except ProcessLookupError:
                continue
            try:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not select.select([descriptor], [], [], remaining)[0]:
                    return False
            finally:
                os.close(descriptor)
    return True
