"""The audit log: whole lines under concurrency, only the documented fields, no content."""

from __future__ import annotations

import json
import multiprocessing
import threading
from pathlib import Path

import pytest

from spyglass.core.audit import AUDIT_FIELDS, AuditLog


def _event(i: int) -> dict[str, object]:
    return {
        "ts": "2026-01-01T00:00:00Z",
        "event_id": f"e{i:06d}" + "x" * 3000,
        "invocation_id": "i",
        "capability": "web.search",
        "outcome": "ok",
    }


def _append(path: str, start: int, count: int) -> None:
    log = AuditLog(Path(path))
    for i in range(start, start + count):
        log.record(_event(i))


def test_events_with_undocumented_fields_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="query"):
        AuditLog(tmp_path / "a.jsonl").record({"ts": "x", "query": "secret"})


def test_every_documented_field_is_accepted(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "a.jsonl")
    log.record(dict.fromkeys(AUDIT_FIELDS, "v"))
    assert log.tail(1) == [dict.fromkeys(AUDIT_FIELDS, "v")]


def test_several_processes_appending_at_once_leave_every_line_intact(tmp_path: Path) -> None:
    path = tmp_path / "audit" / "capabilities.jsonl"
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_append, args=(str(path), n * 100, 100)) for n in range(4)]
    for proc in procs:
        proc.start()
    _append(str(path), 1000, 100)  # and this process too, with large lines
    for proc in procs:
        proc.join(timeout=60)
        assert proc.exitcode == 0
    lines = path.read_text().splitlines()
    assert len(lines) == 500
    ids = {json.loads(line)["event_id"][:7] for line in lines}
    assert len(ids) == 500


def test_threads_appending_at_once_leave_every_line_intact(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "a.jsonl")
    threads = [
        threading.Thread(target=lambda n=n: [log.record(_event(n * 50 + i)) for i in range(50)])
        for n in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(log.tail(1000)) == 400


def test_tail_returns_the_newest_events_oldest_first_and_skips_broken_lines(
    tmp_path: Path,
) -> None:
    log = AuditLog(tmp_path / "a.jsonl")
    for i in range(5):
        log.record({"event_id": str(i)})
    with log.path.open("a") as handle:
        handle.write("{torn\n")
        handle.write("[" * 100_000 + "]" * 100_000 + "\n")  # nested deeper than Python reads
    assert [e["event_id"] for e in log.tail(4)] == ["3", "4"]
    assert AuditLog(tmp_path / "missing.jsonl").tail(5) == []


def test_audit_file_is_private_to_its_owner(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "a.jsonl")
    log.record({"event_id": "1"})
    assert log.path.stat().st_mode & 0o077 == 0
