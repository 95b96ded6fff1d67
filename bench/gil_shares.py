"""Where a process's time holding the GIL goes, from a py-spy profile in its raw format.

    py-spy record --gil -r 500 -d 30 -f raw -o FILE -p PID
    .venv/bin/python -m bench.gil_shares FILE [--top 25]

Each sample (a stack, root first) is put in the kind of its innermost frame that belongs to a
known kind: the event loop's own work (asyncio, selectors, uvloop, or the loop running with no
Python frame above it), hand-offs to worker threads, the outbound HTTP stack, the inbound
server and framework, ``json``, SQLite and other store work on worker threads, and Spyglass's
own code by package. It prints the share of each kind and, with ``--top``, the innermost
frames that weigh most.
"""

from __future__ import annotations

import argparse
import collections
import re
from pathlib import Path

_FRAME = re.compile(r"^(?P<function>.*) \((?P<file>[^()]*?)(?::\d+)?\)$")

#: (kind, path fragments), the first kind whose fragment is in a frame's file wins.
KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "outbound HTTP (httpx, httpcore, h11, loopnet)",
        (
            "httpx/",
            "httpcore/",
            "h11/",
            "spyglass/net/loopnet.py",
            "spyglass/net/pool.py",
        ),
    ),
    ("anyio", ("anyio/",)),
    (
        "hand-offs to worker threads",
        ("concurrent/futures/", "threading.py", "queue.py", "spyglass/core/lane.py"),
    ),
    ("the event loop's own work", ("asyncio/", "selectors.py", "uvloop/")),
    ("uvicorn and httptools", ("uvicorn/", "httptools/")),
    ("Starlette, FastAPI, pydantic", ("starlette/", "fastapi/", "pydantic/", "pydantic_core/")),
    ("json", ("json/",)),
    ("redis, psycopg", ("redis/", "psycopg/", "psycopg_pool/")),
    ("Spyglass", ("spyglass/",)),
)


def parse(line: str) -> tuple[list[tuple[str, str]], int]:
    stack, _, count = line.rstrip("\n").rpartition(" ")
    frames = []
    for frame in stack.split(";"):
        match = _FRAME.match(frame)
        if match:
            frames.append((match["function"], match["file"]))
        else:
            frames.append((frame, ""))
    return frames, int(count)


def kind_of(frames: list[tuple[str, str]]) -> tuple[str, str]:
    """The kind of a sample and the frame that decided it."""
    on_worker = any(
        file.endswith("concurrent/futures/thread.py")
        or (file.endswith("spyglass/core/lane.py") and function.endswith("_work"))
        for function, file in frames
    )
    for function, file in reversed(frames):
        for kind, fragments in KINDS:
            if any(fragment in file for fragment in fragments):
                if kind == "Spyglass":
                    if on_worker:
                        return "store work on worker threads (SQLite)", f"{function} ({file})"
                    part = file.split("spyglass/", 1)[1].split("/", 1)[0].removesuffix(".py")
                    return f"Spyglass: {part}", f"{function} ({file})"
                if kind == "the event loop's own work" and file.endswith("asyncio/runners.py"):
                    # Nothing of Python's above the loop: the loop's C code (uvloop) is running.
                    return kind, "the loop's C code"
                return kind, f"{function} ({file})"
    return "other", f"{frames[-1][0]} ({frames[-1][1]})" if frames else "other"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("profile", type=Path)
    parser.add_argument("--top", type=int, default=0, help="also the N heaviest frames")
    args = parser.parse_args()
    kinds: collections.Counter[str] = collections.Counter()
    frames: collections.Counter[str] = collections.Counter()
    total = 0
    for line in args.profile.read_text().splitlines():
        if not line.strip():
            continue
        stack, count = parse(line)
        kind, frame = kind_of(stack)
        kinds[kind] += count
        frames[f"{kind}: {frame}"] += count
        total += count
    print(f"{total} samples")
    spyglass = sum(n for k, n in kinds.items() if k.startswith("Spyglass"))
    for kind, count in kinds.most_common():
        print(f"{100 * count / total:5.1f} %  {kind}")
    print(f"{100 * spyglass / total:5.1f} %  (Spyglass altogether)")
    for frame, count in frames.most_common(args.top):
        print(f"{100 * count / total:5.1f} %  {frame}")


if __name__ == "__main__":
    main()
