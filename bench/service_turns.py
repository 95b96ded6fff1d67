"""What the conversation service costs on top of the model and the search provider.

With the scripted fake model answering instantly and the real ``web.search`` talking to a
loopback SearXNG-shaped server, through the real service under uvicorn:

1. plain turns per second (no tools), one client and 50 clients at a time;
2. a turn with one approved search through the service (message → pending confirmation →
   approval → search → answer) against the same three requests made directly (model, provider,
   model): median of each and the median ratio;
3. 50 conversations at once, each a full search turn, counting any error.

    .venv/bin/python -m bench.service_turns [--turns 200]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from tests.support.fake_model import FakeModel, Reply, text, tool_call
from tests.support.searxng import SearXNGShaped
from tests.support.server import running_service

from spyglass.core.policy import WEB_ACCESS
from spyglass.paths import Paths
from spyglass.runtime import build_runtime

MESSAGE = "/api/v1/conversation/message"


def answer(body: dict[str, Any]) -> Reply:
    """Search once when tools are offered and the user just spoke; otherwise answer."""
    last = body["messages"][-1]
    if body.get("tools") and last["role"] == "user" and last["content"].startswith("search"):
        return tool_call("web_search", {"query": "harbour tides", "count": 2}, pieces=1)
    return text("Here is the answer.", pieces=1)


async def plain_turn(http: httpx.AsyncClient) -> None:
    response = await http.post(MESSAGE, json={"text": "hello"})
    if response.status_code != 200:
        raise RuntimeError(f"turn failed: {response.status_code} {response.text[:200]}")


async def search_turn(http: httpx.AsyncClient) -> None:
    first = await http.post(MESSAGE, json={"text": "search the tides"})
    body = first.json()
    pending = body.get("pending_confirmation")
    if first.status_code != 200 or not pending:
        raise RuntimeError(f"no confirmation asked: {first.status_code} {first.text[:200]}")
    done = await http.post(
        MESSAGE,
        json={
            "conversation_id": body["conversation_id"],
            "confirmation": {"token": pending["token"], "approve": True},
        },
    )
    result = done.json()
    if done.status_code != 200 or result["events"][0]["status"] != "ok":
        raise RuntimeError(f"search turn failed: {done.status_code} {done.text[:300]}")


async def direct_turn(http: httpx.AsyncClient, model_url: str, provider_url: str) -> None:
    """The same work without Spyglass: model asks, provider answers, model answers."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "search the tides"}]
    tools = [{"type": "function", "function": {"name": "web_search", "parameters": {}}}]
    for round_ in range(2):
        async with http.stream(
            "POST",
            f"{model_url}/chat/completions",
            json={
                "messages": messages,
                "stream": True,
                **({"tools": tools} if round_ == 0 else {}),
            },
        ) as response:
            async for _ in response.aiter_lines():
                pass
        if round_ == 0:
            search = await http.get(
                f"{provider_url}/search", params={"q": "harbour tides", "format": "json"}
            )
            messages.append({"role": "assistant", "content": None})
            messages = [*messages[:1], {"role": "user", "content": search.text[:200]}]


async def timed(count: int, call: Any) -> list[float]:
    await call()  # warm-up
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


async def run(turns: int) -> None:
    with (
        FakeModel(default=answer) as model,
        SearXNGShaped() as provider,
        tempfile.TemporaryDirectory() as folder,
    ):
        runtime = build_runtime(
            Paths(Path(folder)),
            overrides={
                "llm.base_url": model.base_url,
                "search.providers": "searxng",
                "search.searxng.base_url": provider.base_url,
            },
        )
        runtime.policy.set(WEB_ACCESS, True)
        with running_service(runtime) as (base, token):
            limits = httpx.Limits(max_connections=100, max_keepalive_connections=100)
            async with (
                httpx.AsyncClient(
                    base_url=base,
                    headers={"Authorization": f"Bearer {token}"},
                    timeout=60,
                    trust_env=False,
                    limits=limits,
                ) as http,
                httpx.AsyncClient(timeout=60, trust_env=False) as direct,
            ):
                plain = await timed(turns, lambda: plain_turn(http))
                started = time.perf_counter()
                batches = max(1, turns // 50)
                for _ in range(batches):
                    await asyncio.gather(*(plain_turn(http) for _ in range(50)))
                concurrent_rate = batches * 50 / (time.perf_counter() - started)

                through = await timed(turns // 2, lambda: search_turn(http))
                baseline = await timed(
                    turns // 2, lambda: direct_turn(direct, model.base_url, provider.base_url)
                )

            # 50 separate clients, each with its own connection, as 50 browser tabs would be.
            async def conversation() -> None:
                async with httpx.AsyncClient(
                    base_url=base,
                    headers={"Authorization": f"Bearer {token}"},
                    timeout=60,
                    trust_env=False,
                ) as own:
                    await search_turn(own)

            results = await asyncio.gather(
                *(conversation() for _ in range(50)), return_exceptions=True
            )

            errors = [r for r in results if isinstance(r, BaseException)]

    ratio = statistics.median(a / b for a, b in zip(through, baseline, strict=False))
    print("| measure | value |")
    print("|---|---|")
    print(f"| plain turns/s, one client | {1000 / statistics.median(plain):.0f} |")
    print(f"| plain turn median latency | {statistics.median(plain):.2f} ms |")
    print(f"| plain turns/s, 50 clients at a time | {concurrent_rate:.0f} |")
    print(f"| search turn through the service (median) | {statistics.median(through):.2f} ms |")
    print(
        f"| same work directly: model, provider, model (median) | "
        f"{statistics.median(baseline):.2f} ms |"
    )
    print(
        f"| added per search turn (median difference) | "
        f"{statistics.median(through) - statistics.median(baseline):.2f} ms |"
    )
    print(f"| median ratio service / direct | {ratio:.2f}x |")
    print(f"| 50 concurrent search conversations | {50 - len(errors)} ok, {len(errors)} errors |")
    for error in errors[:3]:
        print(f"error: {type(error).__name__}: {error}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args()
    asyncio.run(run(args.turns))


if __name__ == "__main__":
    main()
