"""The whole settings model: one field per section."""

from __future__ import annotations

from typing import Any

from pydantic import Field, SecretStr

from spyglass.settings.approvals import ApprovalSettings
from spyglass.settings.base import MASK, _Section, section
from spyglass.settings.channels import ChannelSettings
from spyglass.settings.fetch import FetchSettings
from spyglass.settings.privacy import PrivacySettings
from spyglass.settings.search import SearchSettings
from spyglass.settings.service import HistorySettings, LLMSettings, ServerSettings
from spyglass.settings.state import StateSettings


class Settings(_Section):
    """Every operator setting of Spyglass."""

    search: SearchSettings = Field(default_factory=section(SearchSettings))
    fetch: FetchSettings = Field(default_factory=section(FetchSettings))
    llm: LLMSettings = Field(default_factory=section(LLMSettings))
    server: ServerSettings = Field(default_factory=section(ServerSettings))
    history: HistorySettings = Field(default_factory=section(HistorySettings))
    channels: ChannelSettings = Field(default_factory=section(ChannelSettings))
    privacy: PrivacySettings = Field(default_factory=section(PrivacySettings))
    approvals: ApprovalSettings = Field(default_factory=section(ApprovalSettings))
    state: StateSettings = Field(default_factory=section(StateSettings))

    def public_dict(self) -> dict[str, Any]:
        """The effective settings as plain data, with every secret masked."""
        masked: dict[str, Any] = _mask(self.model_dump(mode="python"))
        return masked


def _mask(value: Any) -> Any:
    if isinstance(value, SecretStr):
        return MASK if value.get_secret_value() else None
    if isinstance(value, dict):
        return {key: _mask(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_mask(item) for item in value]
    return value
