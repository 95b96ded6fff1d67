"""The owner's provider keys: collected from the provider tables and masked in what is shown."""

from __future__ import annotations

from spyglass.providers.keys import keys_of, redact
from spyglass.settings import MASK
from spyglass.settings.search import ProviderSettings


def test_only_keys_that_are_set_are_collected() -> None:
    sections = [
        ProviderSettings.model_validate({"api_key": "sk-one"}),
        ProviderSettings.model_validate({"api_key": ""}),
        ProviderSettings(),
        ProviderSettings.model_validate({"base_url": "https://a.example", "api_key": "sk-two"}),
    ]
    assert keys_of(sections) == ["sk-one", "sk-two"]


def test_every_key_is_masked_wherever_it_appears() -> None:
    text = "bad key sk-one (sk-one); also sk-two"
    assert redact(text, ["sk-one", "sk-two", ""]) == f"bad key {MASK} ({MASK}); also {MASK}"
