"""Start and stop ``bench/loopback_server.py``; build a fetcher that reaches it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.support.fetch_peers import MappedDialler, StaticResolver  # noqa: E402

from spyglass.fetch import FetchConfig, Fetcher  # noqa: E402

PUBLIC = "93.184.215.14"
NAME = "bench.example"


@contextmanager
def server(*options: str) -> Iterator[int]:
    """The loopback server's port, for as long as the block runs (``options`` its own)."""
    serving = [sys.executable, str(ROOT / "bench" / "loopback_server.py"), *options]
    process = subprocess.Popen(serving, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline())
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)


def guarded_fetcher(port: int, **config: object) -> Fetcher:
    """A real Fetcher; only the dialler maps the public address to the loopback server."""
    resolver = StaticResolver({NAME: [PUBLIC]})
    dialler = MappedDialler({PUBLIC: ("127.0.0.1", port)})
    return Fetcher(FetchConfig(**config), resolver, dialler)  # type: ignore[arg-type]
