"""Rendering pages that need JavaScript: quality, time, browser memory, requests refused.

    PYTHONPATH=src .venv/bin/python bench/fetch_render.py [--repeat 3]
    PYTHONPATH=src .venv/bin/python bench/fetch_render.py --corpora

Method: docs/benchmarks.md, "Rendering pages that need JavaScript".
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.support.fetch_peers import MappedDialler, Peer, Route, StaticResolver, page  # noqa: E402

from bench.extraction_data import f1, plain  # noqa: E402
from bench.measure import descendants  # noqa: E402
from spyglass.capabilities.fetch import read as read_page  # noqa: E402
from spyglass.capabilities.fetch import read_rendered  # noqa: E402
from spyglass.fetch.fetcher import FetchConfig, Fetcher  # noqa: E402
from spyglass.fetch.page import ReadPage  # noqa: E402
from spyglass.fetch.render.limits import RenderLimits  # noqa: E402

TOPICS = {
    "lighthouses": (
        "How lighthouses guided ships",
        [
            "Lighthouses mark dangerous coastlines, shoals and the entrances of harbours.",
            "Early towers burned wood or coal in open fires that were hard to see in rain.",
            "Argand lamps with hollow wicks and reflectors made the light far brighter.",
            "Fresnel lenses bent light into a narrow beam visible more than twenty miles away.",
            "Each light flashes in its own rhythm so that sailors can tell one from another.",
            "Keepers trimmed wicks, wound clockwork and logged the weather through the night.",
            "Automation in the twentieth century replaced most keepers with electric lamps.",
            "Many old towers are now museums, and some still carry a working modern light.",
        ],
    ),
    "sourdough": (
        "Keeping a sourdough starter alive",
        [
            "A starter is a culture of wild yeast and lactic bacteria living in flour and water.",
            "Feed it equal weights of flour and water once a day when it lives on the counter.",
            "A healthy starter doubles within six hours and smells pleasantly sour, like yogurt.",
            "Grey liquid on the surface is alcohol from hunger; pour it off and feed again.",
            "In the refrigerator a starter needs feeding only once a week or so.",
            "Whole grain rye flour wakes a sluggish starter faster than white wheat flour.",
            "Chlorinated tap water can slow fermentation; let it stand overnight before use.",
            "Dried flakes of starter keep for months and revive with a few days of feeding.",
        ],
    ),
    "otters": (
        "How sea otters use tools",
        [
            "Sea otters crack open shellfish by striking them against rocks held on their chests.",
            "Each otter keeps a favourite rock in a loose pouch of skin under its foreleg.",
            "Young otters learn which rocks work best by watching their mothers dive and eat.",
            "Otters eat about a quarter of their body weight every day to stay warm.",
            "Their fur is the densest of any animal, with up to a million hairs per square inch.",
            "Kelp forests recover where otters return, as otters eat the urchins that graze them.",
            "Rafts of resting otters wrap themselves in kelp so that they do not drift apart.",
            "Hunting for fur brought sea otters close to extinction by the early 1900s.",
        ],
    ),
}
ANALYTICS = "analytics.example.org"


def article_html(title: str, paragraphs: list[str]) -> str:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return f"<article><h1>{title}</h1>{body}</article>"


def static_page(title: str, paragraphs: list[str]) -> str:
    return (
        f"<!doctype html><html><head><title>{title}</title></head><body>"
        f"<header><nav><a href='/'>Home</a> <a href='/about'>About</a></nav></header>"
        f"<main>{article_html(title, paragraphs)}</main>"
        "<footer>Copyright the authors</footer></body></html>"
    )


def shell(title: str, mount: str, scripts: str) -> str:
    return (
        f"<!doctype html><html><head><title>{title}</title></head><body>"
        f"<header><nav><a href='/'>Home</a> <a href='/about'>About</a></nav></header>"
        f"{mount}<noscript>You need to enable JavaScript to run this app.</noscript>"
        f"{scripts}<footer>Copyright the authors</footer></body></html>"
    )


BEACON = f"fetch('http://{ANALYTICS}/collect?p=' + location.pathname).catch(() => {{}});"

#: A tiny virtual DOM: h() builds nodes, render() mounts them (React-like).
REACT_JS = (
    "function h(tag, props, ...kids) { return {tag, props: props || {}, kids}; }"
    "function mount(node) { if (typeof node === 'string') return document.createTextNode(node);"
    " const el = document.createElement(node.tag);"
    " for (const [k, v] of Object.entries(node.props)) el.setAttribute(k, v);"
    " for (const kid of node.kids) el.appendChild(mount(kid)); return el; }"
    "const data = JSON.parse(document.getElementById('__DATA__').textContent);"
    "const App = () => h('main', null, h('article', null, h('h1', null, data.title),"
    " ...data.paragraphs.map(p => h('p', null, p))));"
    "document.getElementById('root').appendChild(mount(App()));" + BEACON
)
#: A template with {{ }} interpolation and a v-for-like list (Vue-like).
VUE_JS = (
    "const tpl = document.getElementById('tpl').innerHTML;"
    "const state = JSON.parse(document.getElementById('state').textContent);"
    'const out = tpl.replace(/<p v-for="p in paragraphs">{{ p }}<\\/p>/,'
    " state.paragraphs.map(p => '<p>' + p + '</p>').join(''))"
    ".replace(/{{ title }}/g, state.title);"
    "document.getElementById('app').innerHTML = out;" + BEACON
)
#: The article as JSON from an API of the same site, built with DOM calls.
PLAIN_JS = (
    "fetch('/api/article.json').then(r => r.json()).then(data => {"
    " const main = document.createElement('main'); const art = document.createElement('article');"
    " const h1 = document.createElement('h1'); h1.textContent = data.title; art.appendChild(h1);"
    " for (const p of data.paragraphs) { const el = document.createElement('p');"
    " el.textContent = p; art.appendChild(el); }"
    " main.appendChild(art); document.getElementById('page').appendChild(main); });" + BEACON
)


def routes(title: str, paragraphs: list[str]) -> dict[str, Route]:
    data = json.dumps({"title": title, "paragraphs": paragraphs})
    template = (
        '<main><article><h1>{{ title }}</h1><p v-for="p in paragraphs">{{ p }}</p></article></main>'
    )
    return {
        "/static": page(static_page(title, paragraphs)),
        "/react": page(
            shell(
                title,
                '<div id="root"></div>',
                f'<script type="application/json" id="__DATA__">{data}</script>'
                '<script src="/static/js/main.js"></script>',
            )
        ),
        "/static/js/main.js": page(REACT_JS, "text/javascript"),
        "/vue": page(
            shell(
                title,
                '<div id="app"></div>',
                f'<template id="tpl">{template}</template>'
                f'<script type="application/json" id="state">{data}</script>'
                '<script src="/js/app.js"></script>',
            )
        ),
        "/js/app.js": page(VUE_JS, "text/javascript"),
        "/plain": page(shell(title, '<div id="page"></div>', f"<script>{PLAIN_JS}</script>")),
        "/api/article.json": page(data, "application/json"),
    }


class RssSampler:
    """Peak proportional memory (PSS) of this process's descendants: the browser and its
    Playwright driver."""

    def __init__(self) -> None:
        self.peak_kib = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            # Proportional set size: memory shared between Chromium's processes (its code,
            # shared maps) is divided among them instead of counted once per process.
            total = sum(_pss_kib(pid) for pid in descendants(os.getpid())[1:])
            self.peak_kib = max(self.peak_kib, total)


def _pss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="utf-8") as rollup:
            for line in rollup:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


async def read(
    url: str, mode: str, resolver: StaticResolver, dialler: MappedDialler
) -> tuple[ReadPage, float]:
    config = FetchConfig()
    started = time.perf_counter()
    async with Fetcher(config, resolver, dialler) as fetcher:
        fetched = await fetcher.fetch(url)
    static = await read_page(fetched)
    if mode == "off":
        return static, time.perf_counter() - started
    limits = RenderLimits()
    done = await read_rendered(fetched, static, mode, config, limits, resolver, dialler)
    return done, time.perf_counter() - started


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))]


async def run(repeat: int) -> dict[str, object]:
    peers = {name: Peer(routes(*TOPICS[name])) for name in TOPICS}
    analytics = Peer({"*": page("", "text/plain")})
    for peer in [*peers.values(), analytics]:
        peer.start()
    try:
        answers: dict[str, list[str]] = {}
        mapped: dict[str, tuple[str, int]] = {}
        for number, (name, peer) in enumerate([*peers.items(), (ANALYTICS, analytics)]):
            host = name if name == ANALYTICS else f"{name}.example.com"
            address = f"93.184.215.{20 + number}"
            answers[host] = [address]
            mapped[address] = peer.address
        resolver, dialler = StaticResolver(answers), MappedDialler(mapped)
        scores: dict[str, list[float]] = {"static": [], "react": [], "vue": [], "plain": []}
        render_seconds: list[float] = []
        refused = 0
        rendered = 0
        failed = 0
        with RssSampler() as sampler:
            for name, (title, paragraphs) in TOPICS.items():
                reference = "\n".join([title, *paragraphs])
                for kind in scores:
                    url = f"http://{name}.example.com/{kind}"
                    for _ in range(repeat if kind != "static" else 1):
                        done, seconds = await read(url, "auto", resolver, dialler)
                        if done.rendering is not None and done.rendering.rendered:
                            rendered += 1
                            render_seconds.append(seconds)
                            refused += done.rendering.refused
                        elif kind != "static":
                            failed += 1
                        scores[kind].append(f1(plain(done.document.text), reference)[0])
        static_times: dict[str, list[float]] = {"auto": [], "off": []}
        for _ in range(max(5, repeat * 3)):
            for mode in ("off", "auto"):
                for name in TOPICS:
                    _done, seconds = await read(
                        f"http://{name}.example.com/static", mode, resolver, dialler
                    )
                    static_times[mode].append(seconds)
        return {
            "f1": {kind: round(statistics.mean(values), 4) for kind, values in scores.items()},
            "renders": rendered,
            "shells_not_rendered": failed,
            "load_average_1min": round(os.getloadavg()[0], 1),
            "render_seconds_median": round(statistics.median(render_seconds), 2),
            "render_seconds_p95": round(percentile(render_seconds, 0.95), 2),
            "static_auto_over_off": round(
                statistics.median(static_times["auto"]) / statistics.median(static_times["off"]), 3
            ),
            "static_ms_median": {
                mode: round(1000 * statistics.median(times), 1)
                for mode, times in static_times.items()
            },
            "browser_peak_pss_mb": round(sampler.peak_kib / 1024, 1),
            "requests_refused_per_render": round(refused / max(rendered, 1), 2),
            "analytics_connections": analytics.connections,
        }
    finally:
        for peer in [*peers.values(), analytics]:
            peer.stop()


def corpora() -> dict[str, object]:
    """How many pages of the extraction corpora the shell detector would render.

    WCXB labels the pages its authors found to be client-rendered (``spa``); every other
    page there, and every trafilatura-eval page, is an ordinary page that must read
    statically. The detector alone is measured (``auto`` also skips it for any static read
    of 2,000 characters or more, which can only lower these counts).
    """
    import json as json_module

    from bench.extraction_data import load, page_ids, wcxb_dir
    from spyglass.fetch.render.detect import looks_like_shell

    counts = {"pages": 0, "ordinary": 0, "ordinary_rendered": 0, "spa": 0, "spa_rendered": 0}
    rendered_ids: list[str] = []
    started = time.perf_counter()
    for corpus in ("wcxb", "trafilatura"):
        for page_id in page_ids(corpus):
            item = load(corpus, page_id)
            spa = False
            if corpus == "wcxb":
                truth = json_module.loads(
                    (wcxb_dir() / "ground-truth" / f"{page_id}.json").read_text("utf-8")
                )
                spa = bool(truth.get("_internal", {}).get("spa"))
            shell = looks_like_shell(item.html).shell
            counts["pages"] += 1
            counts["spa" if spa else "ordinary"] += 1
            if shell:
                counts["spa_rendered" if spa else "ordinary_rendered"] += 1
                rendered_ids.append(f"{corpus}:{item.id}")
    return {
        **counts,
        "rendered": rendered_ids,
        "ms_per_page": round(1000 * (time.perf_counter() - started) / max(counts["pages"], 1), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="renders of each shell")
    parser.add_argument(
        "--corpora",
        action="store_true",
        help="instead: count the extraction corpora's pages the shell detector would render",
    )
    options = parser.parse_args()
    result = corpora() if options.corpora else asyncio.run(run(options.repeat))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
