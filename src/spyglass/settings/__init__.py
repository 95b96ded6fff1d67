"""The one settings model: TOML file, then ``SPYGLASS_*`` environment variables, then flags.

The model below *is* the settings table: ``docs/configuration.md`` is generated from it and a
test checks that the two agree. Later sources override earlier ones key by key:

1. defaults written here;
2. ``$SPYGLASS_HOME/config.toml``;
3. environment variables ``SPYGLASS_<SECTION>__<KEY>`` (nested keys joined by ``__``,
   e.g. ``SPYGLASS_FETCH__REDIRECTS=all``); lists may be JSON or comma-separated;
4. command-line flags, passed as a mapping of dotted keys.
"""

from spyglass.settings.approvals import ApprovalMode, ApprovalSettings
from spyglass.settings.base import DEFAULT_USER_AGENT, ENV_PREFIX, MASK, PROJECT_URL
from spyglass.settings.channels import ChannelSettings, MCPChannelSettings, OpenWebUIChannelSettings
from spyglass.settings.fetch import READER_TABLES, FetchSettings
from spyglass.settings.loading import load_settings, load_settings_leniently
from spyglass.settings.model import Settings
from spyglass.settings.privacy import PrivacySettings
from spyglass.settings.search import ProviderSettings, SearchSettings
from spyglass.settings.service import HistorySettings, LLMSettings, ServerSettings
from spyglass.settings.state import StateSettings
from spyglass.settings.template import TEMPLATE

__all__ = [
    "DEFAULT_USER_AGENT",
    "ENV_PREFIX",
    "MASK",
    "PROJECT_URL",
    "READER_TABLES",
    "TEMPLATE",
    "ApprovalMode",
    "ApprovalSettings",
    "ChannelSettings",
    "FetchSettings",
    "HistorySettings",
    "LLMSettings",
    "MCPChannelSettings",
    "OpenWebUIChannelSettings",
    "PrivacySettings",
    "ProviderSettings",
    "SearchSettings",
    "ServerSettings",
    "Settings",
    "StateSettings",
    "load_settings",
    "load_settings_leniently",
]
