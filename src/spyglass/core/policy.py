"""The owner's switches, kept in ``capabilities/policy.json`` and read fresh on every call.

There is one master switch, ``web_access_enabled`` (off until the owner turns it on), and
under it one switch per capability it gates, named ``<wire name>_enabled``
(``web_search_enabled``, ``web_fetch_enabled``). A capability runs, and is offered at all, only
when its master switch and its own switch are both on. The per-capability switches default to
on, so turning web access on keeps meaning "search and fetch"; an owner who wants snippets but
no page reads switches fetch off.

Beside the switches the owner keeps how often each capability asks (``approvals``, see
:mod:`spyglass.core.flagged`): ``each`` or ``flagged`` per ``[approvals]`` key (``search``,
``fetch``). A value set here overrides the ``[approvals]`` setting; one never set follows it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from spyglass import jsontext
from spyglass.core.workers import STORES
from spyglass.errors import StorageError
from spyglass.paths import make_private_dir

if TYPE_CHECKING:
    from spyglass.core.actor import Actor
    from spyglass.core.capability import Capability
    from spyglass.settings import Settings

logger = logging.getLogger(__name__)

WEB_ACCESS = "web_access_enabled"
WEB_SEARCH = "web_search_enabled"
WEB_FETCH = "web_fetch_enabled"

#: Every switch and its value when nobody has set it. A :class:`PolicySource` answers this
#: default for a key it holds no value for.
DEFAULTS: Mapping[str, bool] = {WEB_ACCESS: False, WEB_SEARCH: True, WEB_FETCH: True}
KNOWN_KEYS = tuple(DEFAULTS)
#: The capabilities whose approval mode the owner chooses, by their ``[approvals]`` key.
APPROVAL_KEYS = ("search", "fetch")
#: The approval modes: every call asks, or only a call a check flags does.
APPROVAL_MODES = ("each", "flagged")
#: Where the policy file keeps the approval modes set at run time.
APPROVALS_FIELD = "approvals"
#: The code of a refusal because the policy exists but cannot be read (it fails closed).
POLICY_UNREADABLE = "POLICY_UNREADABLE"
FIX_HINT = "`spyglass policy enable` or `spyglass policy disable` rewrites it"
#: A policy file modified more recently than this is parsed again on every read.
_SETTLED_NS = 100_000_000


class PolicySource(Protocol):
    """Answers whether an owner switch is on. Read at every invocation."""

    def enabled(self, key: str) -> bool: ...


@dataclass(frozen=True)
class PolicyProblem:
    """Why the owner's switches cannot be read (so every switch counts as off)."""

    message: str
    #: Where the policy lives (a file path, a table), for the person who must fix it.
    location: str
    code: str = POLICY_UNREADABLE

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message, "path": self.location}


class ReportsProblems(Protocol):
    """Optional extra for a :class:`PolicySource`: says why it cannot be read right now."""

    def problem(self) -> PolicyProblem | None: ...


def policy_problem(policy: PolicySource) -> PolicyProblem | None:
    """The source's current problem, if it reports problems at all (the default: none).

    A source that fails closed should offer ``problem()``, so the owner is told the policy
    is unreadable rather than merely "off".
    """
    problem = getattr(policy, "problem", None)
    return problem() if callable(problem) else None


def default(key: str) -> bool:
    """A switch's value when it was never set; unknown switches are off."""
    return DEFAULTS.get(key, False)


def capability_switch(capability: Capability) -> str | None:
    """The capability's own switch (``web_search_enabled``), or ``None`` when it has none.

    Only a gated capability whose ``<wire name>_enabled`` is a known switch has one; any
    other gated capability follows its master switch alone.
    """
    if capability.policy_key is None:
        return None
    key = f"{capability.wire_name}_enabled"
    return key if key in DEFAULTS and key != capability.policy_key else None


def switch_off(policy: PolicySource, capability: Capability) -> str | None:
    """The first switch that keeps ``capability`` from running, master switch first."""
    for key in (capability.policy_key, capability_switch(capability)):
        if key is not None and not policy.enabled(key):
            return key
    return None


def capability_allowed(
    policy: PolicySource,
    capability: Capability,
    settings: Settings | None = None,
    actor: Actor | None = None,
) -> bool:
    """Whether the owner's switches let ``capability`` run (and so be offered at all).

    The one place that decides it: the executor's policy stage, the tools a model is offered
    and the MCP tool list all ask here. Given ``settings``, a capability whose configuration
    cannot work (a keyed provider without its key) is not allowed either, so it is never
    offered; the executor reports that case precisely in the capability's own check. Given
    an ``actor``, a capability outside what that person may use is not offered to them.
    """
    if settings is not None and capability.problems(settings):
        return False
    if (
        actor is not None
        and actor.capabilities is not None
        and (capability.name not in actor.capabilities)
    ):
        return False
    return switch_off(policy, capability) is None


def approval_problem(name: object, mode: object) -> str | None:
    """Why ``mode`` cannot be the approval mode of ``name``; ``None`` when it can."""
    if name not in APPROVAL_KEYS:
        return f"{str(name)[:40]!r} has no approval mode; these do: {', '.join(APPROVAL_KEYS)}"
    if mode not in APPROVAL_MODES:
        shown = json.dumps(mode, ensure_ascii=True)[:40]
        return f"the approval mode of {name} is {shown}; use each or flagged"
    return None


def approvals_of(policy: PolicySource) -> Mapping[str, str]:
    """The approval modes the owner set at run time (``{"search": "flagged"}``); a key
    missing follows the ``[approvals]`` setting. A source that keeps none answers ``{}``."""
    modes = getattr(policy, "approvals", None)
    if callable(modes):
        found: Mapping[str, str] = modes()
        return found
    return modes if isinstance(modes, Mapping) else {}


@dataclass(frozen=True)
class PolicySnapshot:
    """The owner's switches as read once, so one decision asks the source once.

    A :class:`PolicySource` itself; :meth:`problem` is the problem found by that reading.
    ``approvals``: the approval modes set at run time, from the same reading.
    """

    values: Mapping[str, bool]
    found_problem: PolicyProblem | None = None
    approvals: Mapping[str, str] = field(default_factory=dict)

    def enabled(self, key: str) -> bool:
        return self.values.get(key, False)

    def problem(self) -> PolicyProblem | None:
        return self.found_problem


class TakesSnapshots(Protocol):
    """Optional extra for a :class:`PolicySource`: every switch and its problem in one read."""

    def snapshot(self) -> PolicySnapshot: ...


def snapshot(policy: PolicySource) -> PolicySnapshot:
    """Read ``policy`` once: every known switch and the source's problem, if any."""
    take = getattr(policy, "snapshot", None)
    if callable(take):
        taken: PolicySnapshot = take()
        return taken
    values = {key: policy.enabled(key) for key in KNOWN_KEYS}
    return PolicySnapshot(values, policy_problem(policy), dict(approvals_of(policy)))


async def read_snapshot(policy: PolicySource) -> PolicySnapshot:
    """:func:`snapshot` from a coroutine: a source that reads itself without blocking
    (``asnapshot``: a database client on the event loop) does; one whose reading blocks
    (``blocking = True``) is read on a worker thread, so the event loop never waits on it. A
    local file is read in place: one ``stat`` while it is unchanged."""
    asnapshot = getattr(policy, "asnapshot", None)
    if asnapshot is not None:
        snapshot_read: PolicySnapshot = await asnapshot()
        return snapshot_read
    if getattr(policy, "blocking", False):
        return await STORES.run(snapshot, policy)
    return snapshot(policy)


class PolicyFile:
    """The policy file. Missing means the defaults (web access off); unreadable means every
    switch off *and* a problem.

    An unreadable file is logged once per distinct problem, not on every read, and reported
    by :meth:`problem` so front ends can say why web access is off.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        #: Held by a writer of this process for its read, change and write (see :meth:`set`).
        self._writing = threading.Lock()
        self._problem: PolicyProblem | None = None
        #: The last parse and the file identity it came from (see :meth:`_load`).
        self._parsed: tuple[tuple[int, ...], dict[str, bool], dict[str, str]] | None = None

    def read(self) -> dict[str, bool]:
        """Every known switch with its current value.

        A switch the file does not mention has its default; a file that cannot be read or
        parsed turns every switch off.
        """
        values, _, problem = self._load()
        self._note(problem)
        return values

    def approvals(self) -> dict[str, str]:
        """The approval modes set at run time (none while the file cannot be read: every
        call then asks, as under ``each``)."""
        _, modes, problem = self._load()
        self._note(problem)
        return modes

    def problem(self) -> PolicyProblem | None:
        """Why the file cannot be used right now (read afresh), or ``None``."""
        _, _, problem = self._load()
        self._note(problem)
        return problem

    def snapshot(self) -> PolicySnapshot:
        """Every switch, the approval modes and the file's problem, from one reading."""
        values, modes, problem = self._load()
        self._note(problem)
        return PolicySnapshot(values, problem, modes)

    def _load(self) -> tuple[dict[str, bool], dict[str, str], PolicyProblem | None]:
        values = dict.fromkeys(KNOWN_KEYS, False)
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            return dict(DEFAULTS), {}, None
        except OSError as exc:
            return values, {}, self._unreadable(f"cannot be read ({exc.strerror or exc})")
        # Every write replaces the file (a new inode); an edit in place changes its modification
        # time or size. While none of that changed, the last parse is still the file's content:
        # fresh on every call for the price of one stat.
        identity = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
        with self._lock:
            parsed = self._parsed
        if parsed is not None and parsed[0] == identity:
            return dict(parsed[1]), dict(parsed[2]), None
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return dict(DEFAULTS), {}, None
        except OSError as exc:
            return values, {}, self._unreadable(f"cannot be read ({exc.strerror or exc})")
        try:
            data = jsontext.loads(raw)
        except (ValueError, UnicodeDecodeError):
            return values, {}, self._unreadable("is not valid JSON")
        if not isinstance(data, dict):
            return values, {}, self._unreadable("must hold a JSON object")
        for key in KNOWN_KEYS:
            if key not in data:
                values[key] = default(key)
            elif isinstance(data[key], bool):
                values[key] = data[key]
            else:
                # "true", 1 or null is a mistake, not "off": every switch off, and the owner
                # told which value to fix, as for a file that is not JSON at all.
                shown = json.dumps(data[key], ensure_ascii=True)
                shown = shown if len(shown) <= 40 else shown[:39] + "…"
                return (
                    dict.fromkeys(KNOWN_KEYS, False),
                    {},
                    self._unreadable(
                        f"gives {key} the value {shown}, which is neither true nor false"
                    ),
                )
        modes = data.get(APPROVALS_FIELD, {})
        wrong = _approvals_problem(modes)
        if wrong is not None:
            return dict.fromkeys(KNOWN_KEYS, False), {}, self._unreadable(wrong)
        settled = time.time_ns() - max(info.st_mtime_ns, info.st_ctime_ns) > _SETTLED_NS
        if len(raw) == info.st_size and settled:
            # Kept only when what was read is what was stat'ed, and only once the file is a
            # little older than the clock's tick: two edits within one tick, of one size,
            # would otherwise look the same (the "racy git" problem).
            with self._lock:
                self._parsed = (identity, dict(values), dict(modes))
        return values, dict(modes), None

    def _unreadable(self, what: str) -> PolicyProblem:
        return PolicyProblem(
            f"the policy file {self.path} {what}, so web access stays off; {FIX_HINT}",
            str(self.path),
        )

    def _note(self, problem: PolicyProblem | None) -> None:
        with self._lock:
            if problem == self._problem:
                return
            self._problem = problem
        if problem is not None:
            logger.warning("%s", problem.message)
        else:
            logger.info("policy file %s is readable again", self.path)

    def enabled(self, key: str) -> bool:
        return self.read().get(key, False)

    def set(self, key: str, value: bool) -> dict[str, bool]:
        """Change one switch, writing the file atomically. Returns the new state."""
        if key not in KNOWN_KEYS:
            raise KeyError(key)
        values, _ = self._change(key, value, None)
        return values

    def set_approval(self, name: str, mode: str | None) -> dict[str, str]:
        """Set how often ``name`` (``search``, ``fetch``) asks; ``None`` follows the
        ``[approvals]`` setting again. Returns the modes set now."""
        problem = approval_problem(name, "each" if mode is None else mode)
        if problem is not None:
            raise KeyError(problem)
        _, modes = self._change(None, None, (name, mode))
        return modes

    def _change(
        self, key: str | None, value: bool | None, approval: tuple[str, str | None] | None
    ) -> tuple[dict[str, bool], dict[str, str]]:
        try:
            # Read, change and write as one step: two switches flipped at once (two requests,
            # the service's worker processes, `spyglass policy` beside them) would otherwise
            # each write the file as it was before the other's change, and one change is lost.
            with self._writing, self._file_locked():
                values, modes = self.read(), self.approvals()
                if key is not None and value is not None:
                    values[key] = value
                if approval is not None:
                    name, mode = approval
                    if mode is None:
                        modes.pop(name, None)
                    else:
                        modes[name] = mode
                # The file keeps the master switch, the one just set and any switch away from
                # its default: a switch nobody touched follows its default.
                kept: dict[str, Any] = {
                    k: v for k, v in values.items() if k in (WEB_ACCESS, key) or v != default(k)
                }
                if modes:
                    kept[APPROVALS_FIELD] = dict(sorted(modes.items()))
                self._write(kept)
        except OSError as exc:
            raise StorageError(
                f"cannot write the policy file {self.path} ({exc.strerror or exc}); "
                "check that its folder exists and is writable"
            ) from exc
        return values, modes

    @contextlib.contextmanager
    def _file_locked(self) -> Iterator[None]:
        """Hold the lock file beside the policy file (other processes' writers wait)."""
        make_private_dir(self.path.parent)
        fd = os.open(self.path.parent / ".policy.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def _write(self, values: dict[str, Any]) -> None:
        make_private_dir(self.path.parent)
        # Temp file in the same folder, fsync, rename: readers see the old or the new file,
        # never a torn one, and concurrent writers each replace it whole.
        fd, tmp = tempfile.mkstemp(prefix=".policy-", suffix=".json", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(values, handle, indent=2, sort_keys=True)
                handle.write("\n")
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        _fsync_dir(self.path.parent)


def _approvals_problem(modes: object) -> str | None:
    """Why the file's ``approvals`` object cannot be used; ``None`` when it can."""
    if not isinstance(modes, dict):
        return f"gives {APPROVALS_FIELD} a value that is not an object"
    for name, mode in modes.items():
        problem = approval_problem(name, mode)
        if problem is not None:
            return f"cannot be used: {problem}"
    return None


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
