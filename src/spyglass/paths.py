"""Where Spyglass keeps its state: everything lives under one home folder, private to its owner.

Every folder Spyglass creates is mode 0700 (files inside are 0600), and folders that exist
already are tightened when a runtime starts, so other users can neither read the audit log,
history or token nor watch them grow.
"""

from __future__ import annotations

import logging
import os
import stat
from dataclasses import dataclass
from pathlib import Path

HOME_ENV = "SPYGLASS_HOME"
PRIVATE_FOLDER = 0o700

logger = logging.getLogger(__name__)


def make_private_dir(folder: Path) -> Path:
    """Create ``folder`` and any missing parent with mode 0700; an existing one is kept."""
    missing: list[Path] = []
    current = folder
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for path in reversed(missing):
        try:
            path.mkdir(mode=PRIVATE_FOLDER)
        except FileExistsError:
            continue  # another process made it first
        # mkdir's mode passes through the umask, which can only remove bits; set it exactly.
        path.chmod(PRIVATE_FOLDER)
    return folder


def tighten(folder: Path) -> None:
    """Take group and other permissions off an existing ``folder`` Spyglass owns."""
    try:
        info = folder.stat()
    except FileNotFoundError:
        return
    except OSError as exc:
        logger.warning("cannot check the permissions of %s (%s)", folder, exc.strerror)
        return
    mode = stat.S_IMODE(info.st_mode)
    if not stat.S_ISDIR(info.st_mode) or not mode & 0o077:
        return
    if info.st_uid != os.geteuid():
        logger.warning("%s belongs to another user and is readable by others", folder)
        return
    try:
        folder.chmod(mode & ~0o077)
    except OSError as exc:
        logger.warning("cannot make %s private (%s)", folder, exc.strerror)


def default_home() -> Path:
    """``$SPYGLASS_HOME`` when set, otherwise the platform's user data folder."""
    value = os.environ.get(HOME_ENV, "").strip()
    if value:
        return Path(value).expanduser()
    import platformdirs  # only when no home is set: it compiles patterns as it is imported

    return Path(platformdirs.user_data_dir("spyglass", appauthor=False))


@dataclass(frozen=True)
class Paths:
    """The files under a Spyglass home folder."""

    home: Path

    @classmethod
    def from_env(cls) -> Paths:
        return cls(default_home())

    @property
    def folders(self) -> tuple[Path, ...]:
        """Every folder Spyglass keeps state in, the home first."""
        return (self.home, self.policy_file.parent, self.audit_file.parent)

    def tighten(self) -> None:
        """Make the existing state folders private (0700 at most); creates nothing."""
        for folder in self.folders:
            tighten(folder)

    @property
    def config_file(self) -> Path:
        return self.home / "config.toml"

    @property
    def policy_file(self) -> Path:
        return self.home / "capabilities" / "policy.json"

    @property
    def audit_file(self) -> Path:
        return self.home / "audit" / "capabilities.jsonl"

    @property
    def database_file(self) -> Path:
        return self.home / "spyglass.db"

    @property
    def state_file(self) -> Path:
        """Tokens (as digests), paused turns, sessions and login codes of the embedded mode."""
        return self.home / "state.db"

    @property
    def model_choice_file(self) -> Path:
        """The model the owner picked among those found on this machine."""
        return self.home / "model.json"

    @property
    def api_token_file(self) -> Path:
        return self.home / "api-token"
