"""``[channels]``: how each front end's calls are confirmed."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from spyglass.settings.base import _Section, section


class MCPChannelSettings(_Section):
    confirmation: Literal["elicit", "delegated"] = Field(
        default="elicit",
        description="elicit: ask through MCP elicitation; delegated: the host asks per call.",
    )


class OpenWebUIChannelSettings(_Section):
    confirmation: Literal["off", "delegated"] = Field(
        default="off",
        description="off: the Open WebUI endpoints refuse; delegated: Open WebUI asks per call.",
    )


class ChannelSettings(_Section):
    """``[channels]``: how each front end obtains the owner's approval."""

    mcp: MCPChannelSettings = Field(default_factory=section(MCPChannelSettings))
    openwebui: OpenWebUIChannelSettings = Field(default_factory=section(OpenWebUIChannelSettings))

    def delegated(self) -> frozenset[str]:
        """Channels whose host asks the person before every call."""
        names = set()
        if self.mcp.confirmation == "delegated":
            names.add("mcp")
        if self.openwebui.confirmation == "delegated":
            names.add("openwebui")
        return frozenset(names)
