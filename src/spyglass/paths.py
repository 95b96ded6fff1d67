"""Where Spyglass keeps its state: everything lives under one home folder."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

HOME_ENV = "SPYGLASS_HOME"


def default_home() -> Path:
    """``$SPYGLASS_HOME`` when set, otherwise the platform's user data folder."""
    value = os.environ.get(HOME_ENV, "").strip()
    if value:
        return Path(value).expanduser()
    return Path(platformdirs.user_data_dir("spyglass", appauthor=False))


@dataclass(frozen=True)
class Paths:
    """The files under a Spyglass home folder."""

    home: Path

    @classmethod
    def from_env(cls) -> Paths:
        return cls(default_home())

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
    def api_token_file(self) -> Path:
        return self.home / "api-token"
