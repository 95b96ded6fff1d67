"""``[privacy]``: what the privacy check looks for before anything leaves the house."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from spyglass.settings.base import TextList, _Section, empty_list


class PrivacySettings(_Section):
    """``[privacy]``: the check of every outgoing query and URL for private data."""

    on_finding: Literal["default", "warn", "block"] = Field(
        default="default",
        description="warn: show findings to the approver; block: refuse the call; default: "
        "warn where a person approves, block on delegated channels.",
    )
    personal_terms: TextList = Field(
        default_factory=empty_list,
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
