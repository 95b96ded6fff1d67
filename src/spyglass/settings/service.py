"""``[llm]``, ``[server]`` and ``[history]``: the model server, the HTTP service, history."""

from __future__ import annotations

from pydantic import Field, SecretStr

from spyglass.settings.base import TextList, _Section, empty_list


class LLMSettings(_Section):
    """``[llm]``: the OpenAI-compatible model server the console talks to."""

    base_url: str = Field(
        default="http://127.0.0.1:8080/v1",
        description="Any OpenAI-compatible server. Left unset, the usual local servers are "
        "looked for on loopback (127.0.0.1 only) and the one model found is used.",
    )
    model: str = Field(
        default="",
        description="Model name sent to the server. Left empty, the model the server lists "
        "(or the owner picks in the console) is used.",
    )
    api_key: SecretStr | None = Field(
        default=None, description="Secret key, if the model server wants one."
    )
    max_tool_rounds: int = Field(
        default=3, ge=0, le=10, description="Tool rounds before the forced answer."
    )
    timeout_seconds: float = Field(
        default=120.0, gt=0, description="Deadline of one model request."
    )
    connect_timeout_seconds: float = Field(
        default=5.0, gt=0, description="Deadline to reach the model server."
    )
    system_prompt: str | None = Field(
        default=None, description="Replace the built-in system prompt."
    )
    tools_refused_memory_seconds: float = Field(
        default=3600.0,
        ge=0,
        description="How long to remember that the model server refused tools for this model "
        "(e.g. Ollama's 'does not support tools'); meanwhile turns run without tools.",
    )


class ServerSettings(_Section):
    """``[server]``: where ``spyglass serve`` listens."""

    host: str = Field(default="127.0.0.1", description="Bind address.")
    port: int = Field(default=8092, ge=0, le=65535, description="Bind port (0 picks a free port).")
    max_body_bytes: int = Field(
        default=1_000_000, gt=0, description="Largest accepted request body."
    )
    allowed_hosts: TextList = Field(
        default_factory=empty_list,
        description="Extra Host names accepted besides loopback, e.g. host.docker.internal "
        "for Open WebUI in Docker.",
    )
    stream_stall_seconds: float = Field(
        default=30.0,
        gt=0,
        le=3600,
        description="A streamed turn whose client has read nothing for this long (its send "
        "buffers full) is ended as if the client had gone: what was produced is saved, "
        "nothing waits on it.",
    )


class HistorySettings(_Section):
    """``[history]``: conversation storage."""

    enabled: bool = Field(default=True, description="Store conversations.")
    retention_days: int = Field(
        default=30, ge=1, description="Delete conversations older than this."
    )
