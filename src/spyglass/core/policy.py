"""The owner's switches, kept in ``capabilities/policy.json`` and read fresh on every call.

There is one master switch, ``web_access_enabled`` (off until the owner turns it on), and
under it one switch per capability it gates, named ``<wire name>_enabled``
(``web_search_enabled``, ``web_fetch_enabled``). A capability runs, and is offered at all, only
when its master switch and its own switch are both on. The per-capability switches default to
on, so turning web access on keeps meaning "search and fetch"; an owner who wants snippets but
no page reads switches fetch off.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from spyglass.errors import StorageError

if TYPE_CHECKING:
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


class PolicySource(Protocol):
    """Answers whether an owner switch is on. Read at every invocation."""

    def enabled(self, key: str) -> bool: ...


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
    policy: PolicySource, capability: Capability, settings: Settings | None = None
) -> bool:
    """Whether the owner's switches let ``capability`` run (and so be offered at all).

    The one place that decides it: the executor's policy stage, the tools a model is offered
    and the MCP tool list all ask here. Given ``settings``, a capability whose configuration
    cannot work (a keyed provider without its key) is not allowed either, so it is never
    offered; the executor reports that case precisely in the capability's own check.
    """
    if settings is not None and capability.problems(settings):
        return False
    return switch_off(policy, capability) is None


class PolicyFile:
    """The policy file. Missing means the defaults (web access off); malformed means every
    switch off, plus a warning."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> dict[str, bool]:
        """Every known switch with its current value.

        A switch the file does not mention has its default; a file that cannot be read or
        parsed turns every switch off.
        """
        values = dict.fromkeys(KNOWN_KEYS, False)
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return dict(DEFAULTS)
        except OSError as exc:
            logger.warning(
                "policy file %s cannot be read (%s); web access stays off", self.path, exc.strerror
            )
            return values
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            logger.warning(
                "policy file %s is not valid JSON; web access stays off. "
                "Run `spyglass policy enable` or `disable` to rewrite it.",
                self.path,
            )
            return values
        if not isinstance(data, dict):
            logger.warning(
                "policy file %s must hold a JSON object; web access stays off", self.path
            )
            return values
        for key in KNOWN_KEYS:
            if key not in data:
                values[key] = default(key)
            else:
                # Only a literal true turns a switch on; "yes", 1 or "true" do not.
                values[key] = data[key] is True
        return values

    def enabled(self, key: str) -> bool:
        return self.read().get(key, False)

    def set(self, key: str, value: bool) -> dict[str, bool]:
        """Change one switch, writing the file atomically. Returns the new state."""
        if key not in KNOWN_KEYS:
            raise KeyError(key)
        values = self.read()
        values[key] = value
        # The file keeps the master switch, the one just set and any switch away from its
        # default: a switch nobody touched follows its default.
        kept = {k: v for k, v in values.items() if k in (WEB_ACCESS, key) or v != default(k)}
        try:
            self._write(kept)
        except OSError as exc:
            raise StorageError(
                f"cannot write the policy file {self.path} ({exc.strerror or exc}); "
                "check that its folder exists and is writable"
            ) from exc
        return values

    def _write(self, values: dict[str, bool]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
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
