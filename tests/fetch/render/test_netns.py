"""Containment end to end in a private network namespace, asserted at the listeners.

A subprocess under ``unshare -n -m`` brings ``lo`` up, puts a public-looking address, a
private-range address and the cloud metadata address on it, bind-mounts a hosts file, and
renders an attack page with the real resolver, dialler and Chromium
(:mod:`tests.support.netns_render`). Every internal listener must see nothing.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fetch.render.support import needs_browser
from tests.support import netns_render
from tests.support.netns import unavailable

ROOT = Path(__file__).resolve().parents[3]
SKIP = unavailable()
pytestmark = [
    pytest.mark.netns,
    pytest.mark.browser,
    needs_browser,
    pytest.mark.skipif(SKIP is not None, reason=SKIP or ""),
]


def test_no_request_of_a_rendered_page_reaches_an_internal_listener(tmp_path: Path) -> None:
    hosts = tmp_path / "hosts"
    hosts.write_text(netns_render.HOSTS)
    setup = " && ".join(
        [
            "ip link set lo up",
            f"ip addr add {netns_render.PUBLIC}/32 dev lo",
            f"ip addr add {netns_render.PRIVATE}/32 dev lo",
            f"ip addr add {netns_render.METADATA}/32 dev lo",
            f"mount --bind {shlex.quote(str(hosts))} /etc/hosts",
            "exec " + shlex.join([sys.executable, "-m", "tests.support.netns_render"]),
        ]
    )
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SPYGLASS_")}
    environ.update({"PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"})
    done = subprocess.run(
        ["unshare", "-n", "-m", "sh", "-c", setup],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
        env=environ,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    outcome = json.loads(done.stdout)
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
