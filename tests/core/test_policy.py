"""The policy file: off unless it literally says on, read fresh, written atomically."""

from __future__ import annotations

import fcntl
import json
import multiprocessing
import os
import time
from pathlib import Path

import pytest

from spyglass.core.capability import Network
from spyglass.core.policy import (
    WEB_ACCESS,
    WEB_FETCH,
    WEB_SEARCH,
    PolicyFile,
    capability_allowed,
    policy_problem,
    read_snapshot,
    snapshot,
    switch_off,
)
from spyglass.errors import StorageError
from tests.support import capabilities as fixtures


def test_missing_file_means_web_access_is_off(tmp_path: Path) -> None:
    assert PolicyFile(tmp_path / "policy.json").enabled(WEB_ACCESS) is False


@pytest.mark.parametrize("content", [b"{not json", b"[true]", b'"on"', b"\xff\xfe", b""])
def test_malformed_file_means_off_with_a_warning_naming_the_file(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, content: bytes
) -> None:
    path = tmp_path / "policy.json"
    path.write_bytes(content)
    assert PolicyFile(path).enabled(WEB_ACCESS) is False
    assert str(path) in caplog.text


@pytest.mark.parametrize("value", ["true", 1, "yes", None, [True], {"on": True}, "x" * 100])
def test_a_switch_that_is_neither_true_nor_false_is_a_broken_file_with_every_switch_off(
    tmp_path: Path, value: object
) -> None:
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({WEB_ACCESS: True, WEB_FETCH: value}))
    policy = PolicyFile(path)
    assert policy.enabled(WEB_ACCESS) is False
    problem = policy_problem(policy)
    assert problem is not None and problem.code == "POLICY_UNREADABLE"
    assert f"gives {WEB_FETCH} the value" in problem.message and str(path) in problem.message
    assert len(problem.message) < len(str(path)) + 250


def test_set_writes_a_file_that_is_read_back_on_the_next_call(tmp_path: Path) -> None:
    policy = PolicyFile(tmp_path / "capabilities" / "policy.json")
    policy.set(WEB_ACCESS, True)
    assert policy.enabled(WEB_ACCESS)
    assert json.loads(policy.path.read_text()) == {WEB_ACCESS: True}
    PolicyFile(policy.path).set(WEB_ACCESS, False)
    assert not policy.enabled(WEB_ACCESS)
    # No temp files left behind: the file and the writers' lock file beside it.
    assert sorted(policy.path.parent.iterdir()) == [
        policy.path.parent / ".policy.lock",
        policy.path,
    ]


def test_unknown_switch_cannot_be_set(tmp_path: Path) -> None:
    with pytest.raises(KeyError):
        PolicyFile(tmp_path / "p.json").set("launch_missiles", True)


def _flip(path: str, rounds: int) -> None:
    policy = PolicyFile(Path(path))
    for i in range(rounds):
        policy.set(WEB_ACCESS, i % 2 == 0)


def test_concurrent_writers_never_leave_a_torn_file(tmp_path: Path) -> None:
    path = tmp_path / "policy.json"
    ctx = multiprocessing.get_context("spawn")
    writers = [ctx.Process(target=_flip, args=(str(path), 40)) for _ in range(4)]
    for writer in writers:
        writer.start()
    reader = PolicyFile(path)
    seen = 0
    while any(w.is_alive() for w in writers):
        if path.exists():
            json.loads(path.read_text())  # must always parse
            seen += 1
    for writer in writers:
        writer.join(timeout=30)
        assert writer.exitcode == 0
    assert isinstance(reader.enabled(WEB_ACCESS), bool)


def _held(lock_file: Path) -> bool:
    """Whether another open file holds the lock (this process's own included)."""
    fd = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


class _Watched(PolicyFile):
    """Notes, at each read and write, whether the writers' locks were held."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.seen: list[tuple[str, bool]] = []

    def read(self) -> dict[str, bool]:
        self.seen.append(("read", _held(self.path.parent / ".policy.lock")))
        return super().read()

    def _write(self, values: dict[str, bool]) -> None:
        self.seen.append(("write", _held(self.path.parent / ".policy.lock")))
        super()._write(values)


def test_a_switch_is_read_changed_and_written_under_a_lock_other_writers_wait_for(
    tmp_path: Path,
) -> None:
    # Two switches flipped at once (two requests, two worker processes) each read the file
    # before the other wrote it, and the second write undid the first change.
    policy = _Watched(tmp_path / "policy.json")
    policy.set(WEB_ACCESS, True)
    assert policy.seen == [("read", True), ("write", True)]
    policy.seen.clear()
    assert policy.read() == {WEB_ACCESS: True, WEB_SEARCH: True, WEB_FETCH: True}
    assert policy.seen == [("read", False)]


def test_a_write_that_fails_raises_a_storage_error_naming_the_file(tmp_path: Path) -> None:
    blocked = tmp_path / "capabilities"
    blocked.write_text("a file where the folder should be")
    policy = PolicyFile(blocked / "policy.json")
    with pytest.raises(StorageError, match="cannot write the policy file"):
        policy.set(WEB_ACCESS, True)
    assert policy.enabled(WEB_ACCESS) is False


def test_a_broken_file_is_reported_as_a_problem_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "policy.json"
    path.write_text("{broken")
    policy = PolicyFile(path)
    problem = policy_problem(policy)
    assert problem is not None
    assert problem.code == "POLICY_UNREADABLE"
    assert problem.location == str(path) and str(path) in problem.message
    assert "spyglass policy enable" in problem.message
    policy.set(WEB_ACCESS, True)  # rewriting the file is the fix
    assert policy_problem(policy) is None and policy.enabled(WEB_ACCESS)


def test_a_file_nested_deeper_than_python_reads_is_a_problem_and_every_switch_off(
    tmp_path: Path,
) -> None:
    policy = PolicyFile(tmp_path / "policy.json")
    policy.path.write_text('{"web_access_enabled": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert not any(policy.read().values())
    problem = policy.problem()
    assert problem is not None and "is not valid JSON" in problem.message


def test_a_missing_file_is_off_but_not_a_problem(tmp_path: Path) -> None:
    assert policy_problem(PolicyFile(tmp_path / "policy.json")) is None


def test_a_broken_file_is_logged_once_per_distinct_problem_not_on_every_read(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "policy.json"
    path.write_text("{broken")
    policy = PolicyFile(path)
    for _ in range(5):
        policy.enabled(WEB_ACCESS)
        policy_problem(policy)
    assert caplog.text.count("is not valid JSON") == 1
    path.write_text("[true]")
    for _ in range(3):
        policy.enabled(WEB_ACCESS)
    assert caplog.text.count("must hold a JSON object") == 1


def test_a_source_without_problem_reporting_has_no_problem() -> None:
    class Switches:
        def enabled(self, key: str) -> bool:
            return False

    assert policy_problem(Switches()) is None


def test_search_and_fetch_switches_are_on_until_switched_off_but_only_matter_under_the_master(
    tmp_path: Path,
) -> None:
    policy = PolicyFile(tmp_path / "policy.json")
    search = fixtures.make("web.search")
    fetch = fixtures.make("web.fetch")
    assert policy.read() == {WEB_ACCESS: False, WEB_SEARCH: True, WEB_FETCH: True}
    assert switch_off(policy, search) == WEB_ACCESS
    policy.set(WEB_ACCESS, True)
    assert capability_allowed(policy, search) and capability_allowed(policy, fetch)
    policy.set(WEB_FETCH, False)
    assert capability_allowed(policy, search)
    assert switch_off(policy, fetch) == WEB_FETCH
    policy.set(WEB_ACCESS, False)
    # With the master off, it is named first: turning fetch on alone would not be enough.
    assert switch_off(policy, fetch) == WEB_ACCESS
    assert switch_off(policy, search) == WEB_ACCESS


def test_a_capability_without_a_switch_of_its_own_follows_its_master_switch(
    tmp_path: Path,
) -> None:
    policy = PolicyFile(tmp_path / "policy.json")
    other = fixtures.make("web.translate")
    local = fixtures.make("system.clock", network=Network.LOCAL, policy_key=None)
    assert switch_off(policy, other) == WEB_ACCESS and capability_allowed(policy, local)
    policy.set(WEB_ACCESS, True)
    policy.set(WEB_SEARCH, False)
    assert capability_allowed(policy, other)


def test_a_file_written_before_the_capability_switches_existed_keeps_both_on(
    tmp_path: Path,
) -> None:
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({WEB_ACCESS: True}))
    assert PolicyFile(path).read() == {WEB_ACCESS: True, WEB_SEARCH: True, WEB_FETCH: True}


def test_a_malformed_file_turns_the_capability_switches_off_too(tmp_path: Path) -> None:
    path = tmp_path / "policy.json"
    path.write_text("{oops")
    assert not any(PolicyFile(path).read().values())


def test_the_file_keeps_only_the_master_switch_and_switches_away_from_their_default(
    tmp_path: Path,
) -> None:
    policy = PolicyFile(tmp_path / "policy.json")
    policy.set(WEB_SEARCH, False)
    policy.set(WEB_FETCH, True)
    assert json.loads(policy.path.read_text()) == {
        WEB_ACCESS: False,
        WEB_SEARCH: False,
        WEB_FETCH: True,
    }
    policy.set(WEB_SEARCH, True)
    assert json.loads(policy.path.read_text()) == {WEB_ACCESS: False, WEB_SEARCH: True}


def _age(path: Path, seconds_ago: float) -> None:
    """Set the file's modification time into the past, as if written a while ago."""
    moment = time.time() - seconds_ago
    os.utime(path, (moment, moment))


def test_a_file_edited_in_place_to_the_same_size_is_read_afresh(tmp_path: Path) -> None:
    path = tmp_path / "policy.json"
    path.write_text('{"web_access_enabled": true }', encoding="utf-8")
    _age(path, 60)
    policy = PolicyFile(path)
    assert policy.enabled(WEB_ACCESS) is True
    assert policy.enabled(WEB_ACCESS) is True  # the second read may use the parse kept
    with path.open("r+", encoding="utf-8") as handle:  # same inode, same size
        handle.write('{"web_access_enabled": false}')
    _age(path, 30)
    assert policy.enabled(WEB_ACCESS) is False


def test_a_file_rewritten_within_the_clock_tick_is_never_served_from_a_stale_parse(
    tmp_path: Path,
) -> None:
    path = tmp_path / "policy.json"
    policy = PolicyFile(path)
    for value in (True, False, True, False):
        # Same size each time, written back to back: timestamps may not tell them apart.
        path.write_text(json.dumps({WEB_ACCESS: value, "pad": "x" * (1 if value else 0)}))
        assert policy.enabled(WEB_ACCESS) is value


def test_a_snapshot_reads_every_switch_and_the_problem_at_once(tmp_path: Path) -> None:
    path = tmp_path / "policy.json"
    PolicyFile(path).set(WEB_ACCESS, True)
    taken = snapshot(PolicyFile(path))
    assert dict(taken.values) == {WEB_ACCESS: True, WEB_SEARCH: True, WEB_FETCH: True}
    assert taken.problem() is None
    path.write_text("{broken")
    broken = snapshot(PolicyFile(path))
    assert not any(broken.values.values())
    problem = policy_problem(broken)
    assert problem is not None and str(path) in problem.message


def test_a_source_that_only_answers_enabled_still_gives_a_snapshot() -> None:
    class OnlyEnabled:
        def enabled(self, key: str) -> bool:
            return key == WEB_ACCESS

    taken = snapshot(OnlyEnabled())
    assert taken.enabled(WEB_ACCESS) and not taken.enabled(WEB_SEARCH)
    assert taken.problem() is None


async def test_a_source_that_blocks_is_read_on_a_worker_thread() -> None:
    import threading

    seen: list[int] = []

    class Remote:
        blocking = True

        def enabled(self, key: str) -> bool:
            seen.append(threading.get_ident())
            return True

    assert (await read_snapshot(Remote())).enabled(WEB_ACCESS)
    assert seen and threading.get_ident() not in seen


def test_an_approval_mode_set_at_run_time_is_kept_beside_the_switches_and_can_be_unset(
    tmp_path: Path,
) -> None:
    policy = PolicyFile(tmp_path / "policy.json")
    assert policy.approvals() == {}
    policy.set(WEB_ACCESS, True)
    assert policy.set_approval("fetch", "flagged") == {"fetch": "flagged"}
    policy.set(WEB_SEARCH, False)
    assert policy.approvals() == {"fetch": "flagged"}
    assert policy.snapshot().approvals == {"fetch": "flagged"}
    assert policy.read()[WEB_ACCESS] is True
    assert policy.set_approval("fetch", None) == {}
    assert "approvals" not in json.loads((tmp_path / "policy.json").read_text())


def test_an_unknown_approval_key_or_mode_is_refused_with_what_to_use(tmp_path: Path) -> None:
    policy = PolicyFile(tmp_path / "policy.json")
    with pytest.raises(KeyError, match="each or flagged"):
        policy.set_approval("fetch", "never")
    with pytest.raises(KeyError, match="search, fetch"):
        policy.set_approval("health", "flagged")


def test_a_policy_file_with_a_broken_approval_mode_keeps_everything_off_and_says_why(
    tmp_path: Path,
) -> None:
    path = tmp_path / "policy.json"
    path.write_text('{"web_access_enabled": true, "approvals": {"fetch": "always"}}')
    policy = PolicyFile(path)
    assert policy.read()[WEB_ACCESS] is False
    assert policy.approvals() == {}
    problem = policy.problem()
    assert problem is not None and "each or flagged" in problem.message
