"""Containment end to end in a private network namespace, asserted at the listeners.

A subprocess under ``unshare -n -m`` brings ``lo`` up, puts a public-looking address, a
private-range address and the cloud metadata address on it, bind-mounts a hosts file, and
renders an attack page with the real resolver, dialler and Chromium
(:mod:`tests.support.netns_render`). Every internal listener must see nothing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.fetch.render.support import needs_browser
from tests.support import netns, netns_render
from tests.support.netns import unavailable

SKIP = unavailable()
pytestmark = [
    pytest.mark.netns,
    pytest.mark.browser,
    needs_browser,
    pytest.mark.skipif(SKIP is not None, reason=SKIP or ""),
]


def test_no_request_of_a_rendered_page_reaches_an_internal_listener(tmp_path: Path) -> None:
    output = netns.run(
        tmp_path,
        netns_render.HOSTS,
        [netns_render.PUBLIC, netns_render.PRIVATE, netns_render.METADATA],
        [sys.executable, "-m", "tests.support.netns_render"],
        timeout=240,
    )
    outcome = json.loads(output)
    for start in ("public", "rebind"):
        # The scripts ran (the page was read), and every one of their requests was refused.
        assert outcome[start]["rendered"] is True, outcome
        assert outcome[start]["read"] is True, outcome
        assert outcome[start]["refused"] > 50, outcome
    # The rebinding name's first answer is the public site (as an attacker's DNS would
    # give); only then does it turn to loopback, and from then on it is refused.
    assert outcome["public"]["other_hosts"] in ([], [netns_render.REBIND]), outcome
    assert outcome["rebind"]["other_hosts"] == [], outcome
    for name, seen in outcome["internal"].items():
        assert seen == {"tcp_80": 0, "tcp_3478": 0, "udp_3478": 0}, (name, outcome)
    # Both static reads reached the page. (The rebinding name's first, public answer may
    # have carried a few of the page's own requests there as well, over its one connection.)
    assert outcome["public_requests"]["/"] >= 2
