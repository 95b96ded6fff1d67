"""Request bodies of the HTTP API, validated strictly (wrong types are 422, never coerced)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

MAX_TEXT = 20000


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ConfirmationAnswer(_Body):
    token: str = Field(min_length=1, max_length=256, description="The pending token.")
    approve: bool = Field(description="true runs the call; false declines it.")


class MessageRequest(_Body):
    """Start or continue a turn (``text``), or answer a pending confirmation."""

    conversation_id: str | None = Field(default=None, min_length=1, max_length=64)
    text: str | None = Field(default=None, min_length=1, max_length=MAX_TEXT)
    confirmation: ConfirmationAnswer | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> MessageRequest:
        if (self.text is None) == (self.confirmation is None):
            raise ValueError("send either text (a message) or confirmation (an answer)")
        if self.confirmation is not None and self.conversation_id is None:
            raise ValueError("conversation_id is required with a confirmation")
        if self.text is not None and not self.text.strip():
            raise ValueError("text must not be blank")
        return self


class PolicyBody(_Body):
    """The switches to change; any left out keep their value."""

    web_access_enabled: bool | None = Field(
        default=None, description="The master switch: off means no web capability at all."
    )
    web_search_enabled: bool | None = Field(
        default=None, description="web.search, under the master switch (on unless set off)."
    )
    web_fetch_enabled: bool | None = Field(
        default=None, description="web.fetch, under the master switch (on unless set off)."
    )

    @model_validator(mode="after")
    def _some_switch(self) -> PolicyBody:
        if not self.changes():
            raise ValueError(
                "name at least one switch: web_access_enabled, web_search_enabled or "
                "web_fetch_enabled, each true or false"
            )
        return self

    def changes(self) -> dict[str, bool]:
        """The switches this body sets, by policy key."""
        return {key: value for key, value in self.model_dump().items() if value is not None}


class InvokeRequest(_Body):
    arguments: dict[str, Any] = Field(default_factory=dict)
    version: int | None = Field(default=None, ge=1, le=1000)
    confirmation: ConfirmationAnswer | None = None


class OpenWebUISearch(BaseModel):
    # Open WebUI may add fields in later versions; unknown ones are ignored.
    model_config = ConfigDict(extra="ignore", strict=True)

    query: str = Field(min_length=1, max_length=500)
    count: int = Field(default=5, ge=1, le=50)


class OpenWebUILoad(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)

    urls: list[str] = Field(min_length=1, max_length=20)
