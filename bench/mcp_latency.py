"""How much the MCP front end adds to a web_search call, per transport and protocol era.

    .venv/bin/python -m bench.mcp_latency [--calls 200]

Method: docs/benchmarks.md, "MCP front end".
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from tests.mcp.peers import serve
from tests.mcp.processes import SPYGLASS, environment, http_client, http_server, owner_token

from bench.measure import timed
from spyglass.core.policy import WEB_ACCESS
from spyglass.paths import Paths
from spyglass.runtime import Runtime, build_runtime

ARGUMENTS = {"query": "harbour tides", "count": 2}


def _summary(name: str, samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[max(0, round(0.95 * len(ordered)) - 1)]
    return f"| {name} | {len(samples)} | {statistics.median(ordered):.2f} | {p95:.2f} |"


async def _client_call(client: Client) -> None:
    result = await client.call_tool("web_search", ARGUMENTS)
    if result.is_error:
        raise SystemExit(f"benchmark call failed: {result.content}")


async def main(calls: int) -> None:
    rows = []
    with serve("searxng") as peer, tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        settings = {
            "search.providers": "searxng",
            "search.searxng.base_url": peer.base_url,
            "channels.mcp.confirmation": "delegated",
        }
        runtime: Runtime = build_runtime(Paths(home), overrides=settings)
        runtime.policy.set(WEB_ACCESS, True)

        async def direct() -> None:
            outcome = await runtime.executor.ainvoke("web.search", None, ARGUMENTS, channel="mcp")
            assert outcome.ok, outcome.to_json()

        rows.append(_summary("executor directly (no MCP)", await timed(calls, direct)))

        env = environment(
            home,
            SPYGLASS_SEARCH__PROVIDERS="searxng",
            SPYGLASS_SEARCH__SEARXNG__BASE_URL=peer.base_url,
            SPYGLASS_CHANNELS__MCP__CONFIRMATION="delegated",
        )
        params = StdioServerParameters(command=SPYGLASS, args=["mcp"], env=env)
        for era in ("legacy", "auto"):
            async with Client(stdio_client(params, errlog=sys.stderr), mode=era) as client:
                samples = await timed(calls, lambda: _client_call(client))
            rows.append(_summary(f"stdio subprocess, {era}", samples))
        with http_server(env) as running:
            for era in ("legacy", "auto"):
                async with http_client(running.url, owner_token(home), era) as client:
                    samples = await timed(calls, lambda: _client_call(client))
                rows.append(_summary(f"Streamable HTTP, {era}", samples))

    print("| path | calls | median ms | p95 ms |")
    print("|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=200)
    asyncio.run(main(parser.parse_args().calls))
