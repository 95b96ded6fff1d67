"""The audit log: one JSON line per invocation attempt, recording that it happened, not what.

Only the fields in :data:`AUDIT_FIELDS` are ever written. None of them can carry an
argument, a result, a URL, a host, a query or an upstream message; the executor builds every
event from its own enumerations and counters.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
from collections import deque
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from spyglass import jsontext
from spyglass.paths import make_private_dir

AUDIT_FIELDS = (
    "ts",
    "event_id",
    "invocation_id",
    "capability",
    "version",
    "side_effect",
    "network",
    "confirmation",
    "channel",
    "confirmed_by",
    "stage",
    "outcome",
    "code",
    "result_bytes",
    "duration_ms",
    "provider",
    "recovered",
    "findings",
    # The person a call was made for, as a pseudonym: stable per person, never a name.
    "actor",
)


def refuse_other_fields(event: Mapping[str, Any]) -> None:
    """Raise :class:`ValueError` if ``event`` carries a field outside :data:`AUDIT_FIELDS`:
    every sink checks before it writes anything."""
    unknown = set(event) - set(AUDIT_FIELDS)
    if unknown:
        raise ValueError(f"audit events may not carry {sorted(unknown)}")


class AuditSink(Protocol):
    def record(self, event: Mapping[str, Any]) -> None:
        """Record ``event``; a sink may finish writing it after returning."""
        ...

    async def arecord(self, event: Mapping[str, Any]) -> None:
        """Record ``event`` and return once it is written (the executor sends the answer
        the event records only then)."""
        ...


class AuditLog:
    """Append-only JSON lines, safe across threads and processes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def record(self, event: Mapping[str, Any]) -> None:
        refuse_other_fields(event)
        line = json.dumps(dict(event), separators=(",", ":"), ensure_ascii=True) + "\n"
        data = line.encode("ascii")
        make_private_dir(self.path.parent)
        with self._lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                # O_APPEND alone keeps small writes whole on local disks; the lock makes it
                # hold for any size and on file systems where append is not atomic.
                fcntl.flock(fd, fcntl.LOCK_EX)
                try:
                    view = memoryview(data)
                    while view:
                        written = os.write(fd, view)
                        view = view[written:]
                finally:
                    fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)

    async def arecord(self, event: Mapping[str, Any]) -> None:
        # The line is in the file when record returns; a thread hop would cost more.
        self.record(event)

    def tail(self, count: int) -> list[dict[str, Any]]:
        """The last ``count`` events, oldest first. Lines that do not parse are skipped."""
        if count <= 0:
            return []
        try:
            handle = self.path.open("r", encoding="ascii", errors="replace")
        except FileNotFoundError:
            return []
        with handle:
            lines = deque(handle, maxlen=count)
        events = []
        for line in lines:
            try:
                value = jsontext.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                events.append(value)
        return events
