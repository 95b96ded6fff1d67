"""``[search]``: the search providers and their tables."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from pydantic import ConfigDict, Field, SecretStr, ValidationError, model_validator

from spyglass.settings.base import TextList, _Section, empty_list

#: The longest snippet ``search.snippet_chars`` may ask for (web.search's result schema).
MAX_SNIPPET_CHARS = 1000


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
                    f"{self._section_name}.{name}.{'.'.join(map(str, e['loc']))} "
                    + (
                        "is not a setting (check the spelling)"
                        if e["type"] == "extra_forbidden"
                        else e["msg"][:1].lower() + e["msg"][1:]
                    )
                    for e in exc.errors()
                )
                raise ValueError(problems) from None
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
    fallback: TextList = Field(
        default_factory=empty_list,
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
        le=MAX_SNIPPET_CHARS,
        description="Longest snippet per result, in characters (small context windows: lower).",
    )
