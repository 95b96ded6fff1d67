"""``[state]``: where the stores live, embedded or shared."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, SecretStr, model_validator

from spyglass.settings.base import _Section


class StateSettings(_Section):
    """``[state]``: where live state (tokens, paused turns, sessions), history and audit live."""

    backend: Literal["embedded", "shared"] = Field(
        default="embedded",
        description="embedded: SQLite files under SPYGLASS_HOME, no servers (survives a restart; "
        "processes on one machine share it); shared: Redis for tokens, paused turns, sessions "
        "and login codes, PostgreSQL for history, audit and the policy switch (needs redis_url "
        "and database_url).",
    )
    redis_url: SecretStr | None = Field(
        default=None,
        description="Redis URL for backend = shared, e.g. redis://:password@127.0.0.1:6379/0, "
        "or through its Unix socket on the same computer "
        "unix://:password@/run/redis/redis-server.sock?db=0.",
    )
    database_url: SecretStr | None = Field(
        default=None,
        description="PostgreSQL URL for backend = shared, e.g. "
        "postgresql://spyglass:password@127.0.0.1:5432/spyglass, or through its Unix socket "
        "on the same computer postgresql:///spyglass?host=/var/run/postgresql.",
    )
    lease_seconds: float = Field(
        default=30.0,
        gt=0,
        le=600,
        description="How long a process holds a resumed turn without renewing it; after a crash "
        "another process may resume the turn once this has passed.",
    )
    connect_timeout_seconds: float = Field(
        default=2.0,
        gt=0,
        le=60,
        description="Give up reaching Redis or PostgreSQL after this long (the call fails "
        "closed with STORE_UNAVAILABLE).",
    )
    page_cache_seconds: float = Field(
        default=600.0,
        gt=0,
        le=86400,
        description="How long a page web.fetch read stays in the turn's page cache (in state.db "
        "or Redis), so the turn resumed in any process reads later parts without fetching "
        "again.",
    )
    page_cache_max_bytes: int = Field(
        default=4 * 1024 * 1024,
        ge=0,
        le=256 * 1024 * 1024,
        description="Largest page (its extracted text, in bytes) the turn's page cache keeps; "
        "a larger one is fetched again if a resumed turn asks for another part. 0 turns the "
        "shared page cache off.",
    )

    @model_validator(mode="after")
    def _shared_needs_servers(self) -> StateSettings:
        if self.backend == "shared":
            missing = [
                name
                for name in ("redis_url", "database_url")
                if getattr(self, name) is None or not getattr(self, name).get_secret_value()
            ]
            if missing:
                raise ValueError(
                    f"state.backend = shared needs {' and '.join('state.' + m for m in missing)}"
                )
        return self
