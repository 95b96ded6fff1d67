"""The one settings model: TOML file, then ``SPYGLASS_*`` environment variables, then flags.

The model below *is* the settings table: ``docs/configuration.md`` is generated from it and a
test checks that the two agree. Later sources override earlier ones key by key:

1. defaults written here;
2. ``$SPYGLASS_HOME/config.toml``;
3. environment variables ``SPYGLASS_<SECTION>__<KEY>`` (nested keys joined by ``__``,
   e.g. ``SPYGLASS_FETCH__REDIRECTS=all``); lists may be JSON or comma-separated;
4. command-line flags, passed as a mapping of dotted keys.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)

from spyglass import hostnames
from spyglass.errors import ConfigError
from spyglass.paths import Paths
from spyglass.version import __version__

ENV_PREFIX = "SPYGLASS_"
PROJECT_URL = "https://github.com/spyglass-dev/spyglass"
DEFAULT_USER_AGENT = f"Spyglass/{__version__} (+{PROJECT_URL})"
MASK = "********"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    @field_validator("*", mode="before")
    @classmethod
    def _split_list_strings(cls, value: Any, info: Any) -> Any:
        # Environment variables are strings; accept "a,b" as well as JSON for list settings.
        field = cls.model_fields.get(info.field_name)
        if isinstance(value, str) and field is not None and _is_list(field.annotation):
            text = value.strip()
            if text.startswith("["):
                return json.loads(text)
            return [part.strip() for part in text.split(",") if part.strip()]
        return value


def _is_list(annotation: Any) -> bool:
    return getattr(annotation, "__origin__", None) is list


class ProviderSettings(_Section):
    """Settings of one search provider (``search.<provider>``)."""

    base_url: str | None = Field(
        default=None, description="Override the provider's endpoint (search.searxng needs it)."
    )
    api_key: SecretStr | None = Field(
        default=None, description="Secret key for keyed providers; never printed or logged."
    )


class _ProviderSections(_Section):
    """A section whose unknown keys are provider tables (``search.brave``, ``fetch.firecrawl``)."""

    model_config = ConfigDict(extra="allow", validate_assignment=True)
    _section_name: ClassVar[str] = "search"

    @model_validator(mode="after")
    def _provider_sections(self) -> _ProviderSections:
        # Any other key is one provider's section: validate it as such, so secrets become
        # SecretStr and typos inside a section are reported.
        extra = self.__pydantic_extra__ or {}
        for name, value in list(extra.items()):
            if isinstance(value, ProviderSettings):
                continue
            if not isinstance(value, Mapping):
                raise ValueError(
                    f"{self._section_name}.{name} is not a setting (check the spelling), nor a "
                    "table of provider settings"
                )
            try:
                extra[name] = ProviderSettings.model_validate(dict(value))
            except ValidationError as exc:
                problems = "; ".join(
                    f"{'.'.join(map(str, e['loc']))}: {e['msg'].lower()}" for e in exc.errors()
                )
                raise ValueError(f"{self._section_name}.{name}: {problems}") from None
        return self

    def provider(self, name: str) -> ProviderSettings:
        """The ``<section>.<name>`` table, empty when not configured."""
        extra = self.model_extra or {}
        value = extra.get(name)
        if isinstance(value, ProviderSettings):
            return value
        if value is None:
            return ProviderSettings()
        return ProviderSettings.model_validate(value)

    def provider_sections(self) -> dict[str, ProviderSettings]:
        """Every configured provider table of this section."""
        return {name: self.provider(name) for name in (self.model_extra or {})}


class SearchSettings(_ProviderSections):
    """``[search]``: which provider answers ``web.search``."""

    providers: str = Field(
        default="duckduckgo",
        description='One provider name, or weighted "searxng:70,duckduckgo:30".',
    )
    fallback: list[str] = Field(
        default_factory=list,
        description="Ordered providers tried when the chosen one fails retryably.",
    )
    timeout_seconds: float = Field(default=10.0, gt=0, le=120, description="Per provider request.")
    max_results: int = Field(
        default=10,
        ge=1,
        le=20,
        description="Most results one search returns (1–20); caps the model's count.",
    )
    snippet_chars: int = Field(
        default=500,
        ge=50,
        le=1000,
        description="Longest snippet per result, in characters (small context windows: lower).",
    )


class FetchSettings(_Section):
    """``[fetch]``: what ``web.fetch`` may reach, who reads the page and how much is read."""

    providers: str = Field(
        default="direct",
        description='"direct" (Spyglass reads the page itself), a hosted reader such as '
        '"firecrawl", or weighted "direct:70,firecrawl:30".',
    )
    fallback: list[str] = Field(
        default_factory=list,
        description="Ordered fetch providers tried when the chosen one fails retryably.",
    )

    redirects: Literal["none", "same-site", "all"] = Field(
        default="same-site", description="Which redirects are followed (each hop re-checked)."
    )
    allow_domains: list[str] = Field(
        default_factory=list, description="If set, only these hosts and their subdomains."
    )
    deny_domains: list[str] = Field(
        default_factory=list, description="Never these hosts or their subdomains (checked first)."
    )
    private_network: list[str] = Field(
        default_factory=list,
        description="Hosts on your own network web.fetch may read, each call still approved: "
        "names (wiki.home.arpa) or private addresses and ranges (192.168.1.0/24). Never "
        "loopback, link-local or cloud metadata.",
    )
    https_only: bool = Field(default=False, description="Refuse plain http URLs.")
    allowed_ports: list[int] = Field(
        default_factory=list, description="Restrict destination ports (empty: any port)."
    )
    respect_robots: bool = Field(
        default=False, description="Check robots.txt (fetched through the same guard)."
    )
    max_chars: int = Field(
        default=20000, ge=500, le=100000, description="Default part size given to the model."
    )
    max_page_bytes: int = Field(
        default=5_000_000,
        gt=0,
        description="Cap on a decoded page body, in bytes; a longer page is read up to the "
        "cap and marked cut_at_bytes.",
    )
    max_pdf_bytes: int = Field(
        default=20_000_000,
        gt=0,
        description="Cap on a decoded PDF body, in bytes; a larger PDF is refused.",
    )
    timeout_seconds: float = Field(
        default=15.0, gt=0, le=300, description="Total deadline of one fetch (hosted too)."
    )
    user_agent: str = Field(
        default=DEFAULT_USER_AGENT, description="User-Agent sent with every fetch."
    )
    provenance: Literal["off", "conversation"] = Field(
        default="off",
        description="conversation: in a conversation, only fetch URLs the user typed, a "
        "search returned, or a page read there links to.",
    )
    provenance_hops: int = Field(
        default=1,
        ge=1,
        le=5,
        description="How many links away from a typed URL or search result a fetch may go.",
    )

    # Rendering pages that need JavaScript (docs/fetch.md, "Rendering").
    render: Literal["off", "auto", "always"] = Field(
        default="auto",
        description="Render pages in a headless browser whose every request passes the "
        "guard: auto renders only pages whose static read is a script shell (little text, "
        "an empty app root, a noscript asking for JavaScript); always renders every HTML "
        "page; off never starts a browser. Without a browser, auto reads statically and "
        "says so.",
    )
    browser_path: str = Field(
        default="",
        description="Chromium or Chrome executable used for rendering; empty: Debian's "
        "/usr/bin/chromium, another chromium on PATH, or Playwright's own Chromium.",
    )
    render_hosts: Literal["same-site", "any"] = Field(
        default="same-site",
        description="Which hosts a rendered page may contact: same-site (the page's own "
        "registrable domain only) or any public host. Every request is checked by the guard "
        "either way.",
    )
    render_timeout_seconds: float = Field(
        default=10.0,
        gt=0,
        le=120,
        description="Total time a render may take, browser start included; added to "
        "fetch.timeout_seconds for a call that may render.",
    )
    render_max_bytes: int = Field(
        default=10_000_000,
        gt=0,
        description="Bytes a rendered page may download across all its requests; later "
        "requests are refused.",
    )
    render_max_requests: int = Field(
        default=100,
        ge=1,
        le=10_000,
        description="Requests a rendered page may make; later requests are refused.",
    )
    render_max_dom_nodes: int = Field(
        default=100_000,
        ge=100,
        description="Elements a rendered page may have; a larger page is not rendered.",
    )
    render_max_heap_mb: int = Field(
        default=256,
        ge=16,
        le=4096,
        description="JavaScript heap of the rendering browser, in megabytes; a page that "
        "needs more crashes its tab and is not rendered.",
    )

    # One table per hosted reader; each defaults to the same provider's [search.<name>].
    firecrawl: ProviderSettings = Field(
        default_factory=ProviderSettings, description="Firecrawl Scrape (key shared with search)."
    )
    tavily: ProviderSettings = Field(
        default_factory=ProviderSettings, description="Tavily Extract (key shared with search)."
    )
    keenable: ProviderSettings = Field(
        default_factory=ProviderSettings, description="Keenable Fetch (key shared with search)."
    )
    jina: ProviderSettings = Field(
        default_factory=ProviderSettings, description="Jina Reader (key optional)."
    )

    @field_validator("allow_domains", "deny_domains")
    @classmethod
    def _host_names(cls, value: list[str]) -> list[str]:
        return _normalised(value, hostnames.domain_rule)

    @field_validator("private_network")
    @classmethod
    def _private_hosts(cls, value: list[str]) -> list[str]:
        return _normalised(value, hostnames.private_network_entry)

    @property
    def call_timeout_seconds(self) -> float:
        """Deadline of one ``web.fetch`` call: the fetch, plus a render when one may run."""
        extra = self.render_timeout_seconds if self.render != "off" else 0.0
        return self.timeout_seconds + extra

    def provider(self, name: str) -> ProviderSettings:
        """The ``fetch.<name>`` table of a hosted reader, empty for any other name."""
        if name not in READER_TABLES:
            return ProviderSettings()
        value: ProviderSettings = getattr(self, name)
        return value

    def provider_sections(self) -> dict[str, ProviderSettings]:
        """Every hosted reader's table."""
        return {name: self.provider(name) for name in READER_TABLES}


#: The hosted readers that have a ``fetch.<name>`` table (a test keeps it in step).
READER_TABLES = ("firecrawl", "tavily", "keenable", "jina")


def _normalised(entries: list[str], rule: Callable[[str], str]) -> list[str]:
    """Each entry through ``rule`` (the one in :mod:`spyglass.hostnames`), duplicates dropped."""
    out: list[str] = []
    for number, entry in enumerate(entries, start=1):
        try:
            value = rule(entry)
        except hostnames.HostnameError as exc:
            raise ValueError(f"entry {number} ({entry[:80]!r}) cannot be used: {exc}") from None
        if value not in out:
            out.append(value)
    return out


class LLMSettings(_Section):
    """``[llm]``: the OpenAI-compatible model server the console talks to."""

    base_url: str = Field(
        default="http://127.0.0.1:8080/v1", description="Any OpenAI-compatible server."
    )
    model: str = Field(default="", description="Model name sent to the server.")
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
    allowed_hosts: list[str] = Field(
        default_factory=list,
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


class PrivacySettings(_Section):
    """``[privacy]``: the check of every outgoing query and URL for private data."""

    on_finding: Literal["default", "warn", "block"] = Field(
        default="default",
        description="warn: show findings to the approver; block: refuse the call; default: "
        "warn where a person approves, block on delegated channels.",
    )
    personal_terms: list[str] = Field(
        default_factory=list,
        description="Your own words to watch for (names, address, employer), matched "
        "ignoring case and accents.",
    )
    phone_region: str = Field(
        default="US",
        description="Region (ISO 3166 code) for phone numbers written without +country code.",
    )
    copied_words: int = Field(
        default=8,
        ge=4,
        le=50,
        description="Flag this many consecutive words copied from your messages.",
    )

    @field_validator("phone_region")
    @classmethod
    def _region(cls, value: str) -> str:
        text = value.strip().upper()
        if len(text) != 2 or not text.isascii() or not text.isalpha():
            raise ValueError(f'{value!r} is not a two-letter region code such as "US" or "GB"')
        return text

    @field_validator("personal_terms")
    @classmethod
    def _terms(cls, value: list[str]) -> list[str]:
        return [term.strip() for term in value if term.strip()]


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
        description="Redis URL for backend = shared, e.g. redis://:password@127.0.0.1:6379/0.",
    )
    database_url: SecretStr | None = Field(
        default=None,
        description="PostgreSQL URL for backend = shared, e.g. "
        "postgresql://spyglass:password@127.0.0.1:5432/spyglass.",
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

    mcp: MCPChannelSettings = Field(default_factory=MCPChannelSettings)
    openwebui: OpenWebUIChannelSettings = Field(default_factory=OpenWebUIChannelSettings)

    def delegated(self) -> frozenset[str]:
        """Channels whose host asks the person before every call."""
        names = set()
        if self.mcp.confirmation == "delegated":
            names.add("mcp")
        if self.openwebui.confirmation == "delegated":
            names.add("openwebui")
        return frozenset(names)


class Settings(_Section):
    """Every operator setting of Spyglass."""

    search: SearchSettings = Field(default_factory=SearchSettings)
    fetch: FetchSettings = Field(default_factory=FetchSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    server: ServerSettings = Field(default_factory=ServerSettings)
    history: HistorySettings = Field(default_factory=HistorySettings)
    channels: ChannelSettings = Field(default_factory=ChannelSettings)
    privacy: PrivacySettings = Field(default_factory=PrivacySettings)
    state: StateSettings = Field(default_factory=StateSettings)

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


def load_settings(
    paths: Paths | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Settings:
    """Build the effective settings from file, environment and flag overrides.

    Raises :class:`ConfigError` naming the source, key and expectation on any bad value.
    """
    merged, sources = _merge(paths, environ, overrides)
    return _validate(merged, sources)


def load_settings_leniently(
    paths: Paths | None = None, *, environ: Mapping[str, str] | None = None
) -> tuple[Settings, list[str]]:
    """Like :func:`load_settings`, but keys that are not settings are left out and reported.

    For ``spyglass config show``, which must work to help fix the very file every other
    command refuses. Any other bad value still raises :class:`ConfigError`.
    """
    merged, sources = _merge(paths, environ, None)
    try:
        return Settings.model_validate(merged), []
    except ValidationError as exc:
        unknown = [
            tuple(str(part) for part in error["loc"])
            for error in exc.errors()
            if error["type"] == "extra_forbidden"
        ]
    except json.JSONDecodeError:
        return _validate(merged, sources), []  # raises the ConfigError that explains it
    for key in unknown:
        node: Any = merged
        for part in key[:-1]:
            node = node.get(part, {}) if isinstance(node, dict) else {}
        if isinstance(node, dict):
            node.pop(key[-1], None)
    problems = [
        f"{sources.get(key, 'settings')}: {'.'.join(key)} is not a setting" for key in unknown
    ]
    return _validate(merged, sources), problems


def _merge(
    paths: Paths | None,
    environ: Mapping[str, str] | None,
    overrides: Mapping[str, Any] | None,
) -> tuple[dict[str, Any], dict[tuple[str, ...], str]]:
    paths = paths or Paths.from_env()
    environ = os.environ if environ is None else environ
    merged: dict[str, Any] = {}
    sources: dict[tuple[str, ...], str] = {}

    file_data = _read_toml(paths.config_file)
    for key, value in _flatten(file_data):
        _put(merged, key, value)
        sources[key] = f"{paths.config_file}"

    for name, raw in sorted(environ.items()):
        if not name.startswith(ENV_PREFIX) or name == "SPYGLASS_HOME" or "__" not in name:
            continue
        key = tuple(part.lower() for part in name[len(ENV_PREFIX) :].split("__"))
        if not all(key):
            raise ConfigError(f"environment variable {name}: empty key part; use SECTION__KEY")
        if not _encodable(raw):
            # A byte that is not UTF-8 survives in os.environ as a lone surrogate.
            raise ConfigError(
                f"environment variable {name} is not valid UTF-8 text; set it again from a "
                "UTF-8 terminal (check LANG / LC_ALL)"
            )
        _put(merged, key, raw)
        sources[key] = f"environment variable {name}"

    for dotted, value in (overrides or {}).items():
        if value is None:
            continue
        key = tuple(dotted.split("."))
        if isinstance(value, str) and not _encodable(value):
            raise ConfigError(f"the value given for {dotted} is not valid UTF-8 text")
        _put(merged, key, value)
        sources[key] = f"flag for {dotted}"
    return merged, sources


def _validate(merged: dict[str, Any], sources: Mapping[tuple[str, ...], str]) -> Settings:
    try:
        return Settings.model_validate(merged)
    except ValidationError as exc:
        raise ConfigError(_explain(exc, sources)) from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"a list setting is not valid JSON: {exc.msg}") from None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}); fix or remove the file") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror})") from None


def _flatten(
    data: Mapping[str, Any], prefix: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], Any]]:
    for key, value in data.items():
        if isinstance(value, Mapping):
            yield from _flatten(value, (*prefix, key))
        else:
            yield (*prefix, key), value


def _put(target: dict[str, Any], key: tuple[str, ...], value: Any) -> None:
    node = target
    for part in key[:-1]:
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            child = {}
            node[part] = child
        node = child
    node[key[-1]] = value


def _explain(exc: ValidationError, sources: Mapping[tuple[str, ...], str]) -> str:
    lines = []
    for error in exc.errors():
        key = tuple(str(part) for part in error["loc"])
        dotted = ".".join(key)
        where = sources.get(key, "settings")
        if error["type"] == "extra_forbidden":
            what = (
                "is not a setting (check the spelling; `spyglass config show` lists the "
                "settings and names every key that is not one)"
            )
        else:
            what = error["msg"].lower()
        lines.append(f"{where}: {dotted} {what}")
    return "invalid settings:\n  " + "\n  ".join(lines)


TEMPLATE = """\
# Spyglass settings. Every key is optional; the value shown is the default.
# Environment variables override this file: SPYGLASS_<SECTION>__<KEY>, e.g.
# SPYGLASS_FETCH__REDIRECTS=all. `spyglass config show` prints the effective settings.

[search]
# One provider, or weighted: "searxng:70,duckduckgo:30"
# providers = "duckduckgo"
# fallback = []
# timeout_seconds = 10
# max_results = 10          # most results per search (1-20); caps what the model asks for
# snippet_chars = 500       # longest snippet per result

# [search.searxng]
# base_url = "http://127.0.0.1:8888"

# [search.brave]
# api_key = "..."

[fetch]
# providers = "direct"      # or a hosted reader: "firecrawl", "direct:70,firecrawl:30"
# fallback = []
# redirects = "same-site"   # none, same-site or all
# allow_domains = []
# deny_domains = []
# private_network = []    # e.g. ["wiki.home.arpa", "192.168.1.0/24"]
# https_only = false
# allowed_ports = []
# respect_robots = false
# max_chars = 20000
# timeout_seconds = 15

# [fetch.firecrawl]         # a hosted reader's key; defaults to [search.firecrawl]'s key
# api_key = "..."

[llm]
# base_url = "http://127.0.0.1:8080/v1"
# model = ""
# max_tool_rounds = 3

[server]
# host = "127.0.0.1"
# port = 8092

[history]
# enabled = true
# retention_days = 30

[channels.mcp]
# confirmation = "elicit"     # elicit or delegated

[channels.openwebui]
# confirmation = "off"        # off or delegated
"""
