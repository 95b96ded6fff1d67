"""Pages read through the whole fetch path against the extraction benchmark's shortcut.

    PYTHONPATH=src:. .venv/bin/python bench/fetch_pipeline.py [--wcxb 200]

The extraction benchmarks call ``extract_html`` on each page's HTML under its original URL.
A page judged through ``spyglass fetch`` goes through more: an HTTP response, the charset
rules, and whatever address it is served from. Here every sampled WCXB dev page is served,
as stored (``text/html``, no charset), by a loopback peer behind the test resolver and
dialler under ``http://pages.example/<id>``, and read by the real :class:`Fetcher`. Reports:

- **fetch path against the shortcut, same URL**: pages whose text differs from
  ``extract_html`` on the same HTML and URL (decoding, the response, the caps) — none
  expected but pages over ``fetch.max_page_bytes``, which are read up to the cap;
- **served elsewhere against the original URL**: pages that read differently (word F1
  against the reference) from ``extract_html`` under their own URL, and the mean F1 lost.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.support.fetch_peers import (  # noqa: E402
    PUBLIC_V4,
    Handler,
    MappedDialler,
    Peer,
    StaticResolver,
    respond,
)

from bench.extraction_data import load, page_ids, wcxb_dir  # noqa: E402
from bench.fetch_extraction import pick  # noqa: E402

HOST = "pages.example"


async def compare(ids: list[str]) -> None:
    from spyglass.capabilities.fetch import read
    from spyglass.extract.html import extract_html
    from spyglass.fetch import FetchConfig, Fetcher

    stored: dict[str, bytes] = {}

    def serve(handler: Handler) -> None:
        body = stored.get(handler.path.strip("/"))
        if body is None:
            respond(handler, 404, b"not here", "text/plain")
        else:
            respond(handler, 200, body, "text/html")

    path_differs: list[str] = []
    elsewhere: list[tuple[float, str]] = []
    with Peer({"*": serve}) as peer:
        resolver = StaticResolver({HOST: [PUBLIC_V4[0]]})
        dialler = MappedDialler({PUBLIC_V4[0]: peer.address})
        async with Fetcher(FetchConfig(), resolver, dialler) as fetcher:
            for number, page_id in enumerate(ids, 1):
                page = load("wcxb", page_id)
                raw = (wcxb_dir() / "html" / f"{page_id}.html.gz").read_bytes()
                stored[page_id] = gzip.decompress(raw)
                url = f"http://{HOST}/{page_id}"
                fetched = (await read(await fetcher.fetch(url))).document.text
                if fetched != extract_html(page.html, url).text:
                    path_differs.append(page_id)
                at_home = page.score(extract_html(page.html, page.url).text)["f1"]
                away = page.score(fetched)["f1"]
                if abs(at_home - away) > 1e-9:
                    elsewhere.append((at_home - away, page_id))
                if number % 50 == 0:
                    print(f"  {number} pages", file=sys.stderr, flush=True)
    lost = sum(delta for delta, _ in elsewhere) / len(ids)
    elsewhere.sort(reverse=True)
    print(f"{len(ids)} WCXB dev pages served as http://{HOST}/<id>")
    print(f"fetch path against extract_html, same URL: {len(path_differs)} differ {path_differs}")
    print(
        f"served elsewhere against the original URL: {len(elsewhere)} read differently, "
        f"mean F1 lost {lost:+.4f}; largest: "
        + ", ".join(f"{page_id} {delta:+.3f}" for delta, page_id in elsewhere[:5])
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--wcxb", type=int, default=200, help="WCXB dev pages")
    args = parser.parse_args()
    asyncio.run(compare(pick(page_ids("wcxb"), args.wcxb)))


if __name__ == "__main__":
    main()
