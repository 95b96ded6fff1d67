"""The load benchmark under failures (``bench/disruptions.py``) at a tiny size, so it does not
rot: two processes, a few conversations, one process SIGKILLed and started again."""

from __future__ import annotations

import argparse

from bench.disruptions import TARGETS, run, table


async def test_a_tiny_run_with_a_process_killed_meets_every_target_and_says_so() -> None:
    args = argparse.Namespace(
        processes=2,
        concurrency=4,
        seconds=1.0,
        down_seconds=0.5,
        disruptions=["kill"],
        redis_persistence="yes",
        lease_seconds=2.0,
        retry_seconds=30.0,
    )
    result = await run(args)
    assert result["completed"] > 0
    assert {name: result[name] for name in TARGETS} == dict.fromkeys(TARGETS, 0)
    assert not [code for code in result["answers_not_200"] if code.startswith("500")]
    (kill,) = result["disruptions"]
    assert kill["disruption"] == "kill"
    assert 0 <= kill["healthy_s"] < 120
    assert "| searched twice | 0 | 0 |" in table(result)
