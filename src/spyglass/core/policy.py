"""The owner's switches, kept in ``capabilities/policy.json`` and read fresh on every call."""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from spyglass.errors import StorageError

if TYPE_CHECKING:
    from spyglass.core.capability import Capability
    from spyglass.settings import Settings

logger = logging.getLogger(__name__)

WEB_ACCESS = "web_access_enabled"
KNOWN_KEYS = (WEB_ACCESS,)


class PolicySource(Protocol):
    """Answers whether an owner switch is on. Read at every invocation."""

    def enabled(self, key: str) -> bool: ...


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
    return capability.policy_key is None or policy.enabled(capability.policy_key)


class PolicyFile:
    """The policy file. Missing means everything off; malformed means off plus a warning."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> dict[str, bool]:
        """Every known switch with its current value (``False`` unless the file says true)."""
        values = dict.fromkeys(KNOWN_KEYS, False)
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return values
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
            # Only a literal true turns a switch on; "yes", 1 or "true" do not.
            values[key] = data.get(key) is True
        return values

    def enabled(self, key: str) -> bool:
        return self.read().get(key, False)

    def set(self, key: str, value: bool) -> dict[str, bool]:
        """Change one switch, writing the file atomically. Returns the new state."""
        if key not in KNOWN_KEYS:
            raise KeyError(key)
        values = self.read()
        values[key] = value
        try:
            self._write(values)
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
