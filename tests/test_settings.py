"""One settings model: defaults, then TOML, then SPYGLASS_* variables, then flags."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from spyglass.errors import ConfigError
from spyglass.paths import Paths
from spyglass.settings import MASK, ProviderSettings, Settings, load_settings
from spyglass.settings.base import split_list_string


def _paths(tmp_path: Path, toml: str | None = None) -> Paths:
    if toml is not None:
        (tmp_path / "config.toml").write_text(toml)
    return Paths(tmp_path)


def test_defaults_match_the_design_table(tmp_path: Path) -> None:
    s = load_settings(_paths(tmp_path), environ={})
    assert s.search.providers == "duckduckgo" and s.search.fallback == []
    assert s.search.timeout_seconds == 10
    assert s.fetch.redirects == "same-site" and s.fetch.max_chars == 20000
    assert (s.fetch.max_page_bytes, s.fetch.max_pdf_bytes) == (5_000_000, 20_000_000)
    assert s.fetch.timeout_seconds == 15 and s.fetch.user_agent.startswith("Spyglass/")
    assert s.llm.base_url == "http://127.0.0.1:8080/v1" and s.llm.max_tool_rounds == 3
    assert (s.server.host, s.server.port) == ("127.0.0.1", 8092)
    assert (s.history.enabled, s.history.retention_days) == (True, 30)
    assert s.channels.mcp.confirmation == "elicit"
    assert s.channels.openwebui.confirmation == "off"


def test_environment_overrides_file_and_flags_override_environment(tmp_path: Path) -> None:
    paths = _paths(
        tmp_path, '[fetch]\nredirects = "none"\nmax_chars = 1000\n[server]\nport = 9000\n'
    )
    s = load_settings(
        paths,
        environ={"SPYGLASS_FETCH__REDIRECTS": "all", "SPYGLASS_SERVER__PORT": "9100"},
        overrides={"server.port": 9200},
    )
    assert s.fetch.redirects == "all"
    assert s.fetch.max_chars == 1000
    assert s.server.port == 9200


def test_list_settings_accept_json_or_commas_from_the_environment(tmp_path: Path) -> None:
    s = load_settings(
        _paths(tmp_path),
        environ={
            "SPYGLASS_FETCH__DENY_DOMAINS": "a.example, b.example",
            "SPYGLASS_FETCH__ALLOWED_PORTS": "[443, 8443]",
        },
    )
    assert s.fetch.deny_domains == ["a.example", "b.example"]
    assert s.fetch.allowed_ports == [443, 8443]


def _list_fields(model: type[BaseModel], prefix: str = "") -> Iterator[tuple[str, FieldInfo]]:
    for name, field in model.model_fields.items():
        if isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel):
            yield from _list_fields(field.annotation, f"{prefix}{name}.")
        elif getattr(field.annotation, "__origin__", None) is list:
            yield f"{prefix}{name}", field


def test_every_list_setting_takes_a_comma_separated_environment_variable() -> None:
    # The splitting travels with the list types (TextList, NumberList): a new list setting
    # declared as a plain list[...] would refuse "a,b" from the environment.
    fields = dict(_list_fields(Settings))
    assert "fetch.allowed_ports" in fields and "privacy.personal_terms" in fields
    plain = [
        key
        for key, field in fields.items()
        if not any(getattr(rule, "func", None) is split_list_string for rule in field.metadata)
    ]
    assert plain == []


def test_provider_sections_come_from_file_and_environment(tmp_path: Path) -> None:
    paths = _paths(tmp_path, '[search.searxng]\nbase_url = "http://127.0.0.1:8888"\n')
    s = load_settings(paths, environ={"SPYGLASS_SEARCH__BRAVE__API_KEY": "sk-secret"})
    assert s.search.provider("searxng").base_url == "http://127.0.0.1:8888"
    key = s.search.provider("brave").api_key
    assert key is not None and key.get_secret_value() == "sk-secret"
    assert s.search.provider("kagi").api_key is None


def test_secrets_are_masked_in_the_public_view(tmp_path: Path) -> None:
    s = load_settings(
        _paths(tmp_path),
        environ={"SPYGLASS_SEARCH__BRAVE__API_KEY": "sk-1", "SPYGLASS_LLM__API_KEY": "sk-2"},
    )
    public = s.public_dict()
    assert public["search"]["brave"]["api_key"] == MASK
    assert public["llm"]["api_key"] == MASK
    assert "sk-1" not in repr(public) and "sk-2" not in repr(public)


def test_malformed_toml_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"config\.toml: not valid TOML"):
        load_settings(_paths(tmp_path, "[fetch\n"), environ={})


def test_a_file_that_is_not_utf8_is_a_configuration_error_naming_the_file_and_line(
    tmp_path: Path,
) -> None:
    (tmp_path / "config.toml").write_bytes(b'[search]\nproviders = "duckduckgo"\n# caf\xe9\n')
    with pytest.raises(ConfigError) as info:
        load_settings(Paths(tmp_path), environ={})
    message = str(info.value)
    assert "config.toml, line 3, column 6" in message and "0xE9 is not UTF-8" in message


def test_a_file_saved_as_utf16_is_a_configuration_error_saying_so(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_bytes("[search]\n".encode("utf-16"))
    with pytest.raises(ConfigError, match=r"config\.toml, line 1: saved as UTF-16"):
        load_settings(Paths(tmp_path), environ={})


def test_a_file_starting_with_a_utf8_byte_order_mark_is_read_as_notepad_writes_it(
    tmp_path: Path,
) -> None:
    text = '[search]\nproviders = "searxng"\n[search.searxng]\nbase_url = "http://s.example"\n'
    (tmp_path / "config.toml").write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert load_settings(Paths(tmp_path), environ={}).search.providers == "searxng"


@pytest.mark.parametrize(
    ("toml", "said"),
    [
        (
            "[search]\nbrave = 3\n",
            "config.toml: search.brave is not a setting (check the spelling), nor a table",
        ),
        (
            '[search.tavily]\napi_kye = "x"\n',
            "config.toml: search.tavily.api_kye is not a setting (check the spelling)",
        ),
        (
            '[privacy]\nphone_region = "Narnia"\n',
            "config.toml: privacy.phone_region: 'Narnia' is not a two-letter region code",
        ),
    ],
)
def test_a_rule_of_our_own_is_said_in_our_words_naming_the_file_and_the_whole_key(
    tmp_path: Path, toml: str, said: str
) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(_paths(tmp_path, toml), environ={})
    assert said in str(info.value)
    assert "value error" not in str(info.value).lower()


def test_a_file_nesting_deeper_than_can_be_read_names_the_file(tmp_path: Path) -> None:
    deep = "[fetch]\nallowed_ports = " + "[" * 100_000 + "]" * 100_000 + "\n"
    with pytest.raises(ConfigError, match=r"config\.toml: nests arrays or tables deeper"):
        load_settings(_paths(tmp_path, deep), environ={})


def test_a_list_variable_nesting_deeper_than_can_be_read_names_the_variable(
    tmp_path: Path,
) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(ConfigError) as info:
        load_settings(_paths(tmp_path), environ={"SPYGLASS_FETCH__ALLOWED_PORTS": deep})
    assert "SPYGLASS_FETCH__ALLOWED_PORTS" in str(info.value)
    assert "nests deeper than can be read" in str(info.value)


def test_invalid_value_names_the_source_key_and_expectation(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(_paths(tmp_path), environ={"SPYGLASS_FETCH__REDIRECTS": "sometimes"})
    message = str(info.value)
    assert "SPYGLASS_FETCH__REDIRECTS" in message
    assert "fetch.redirects" in message
    assert "'none', 'same-site' or 'all'" in message


def test_unknown_key_in_the_file_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(_paths(tmp_path, "[fetch]\nredirect = 'all'\n"), environ={})
    assert "fetch.redirect is not a setting" in str(info.value)
    assert "config.toml" in str(info.value)


def test_out_of_range_value_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"fetch\.max_chars"):
        load_settings(_paths(tmp_path, "[fetch]\nmax_chars = 10\n"), environ={})


def test_delegated_channels_follow_the_channel_settings() -> None:
    s = Settings.model_validate({"channels": {"mcp": {"confirmation": "delegated"}}})
    assert s.channels.delegated() == frozenset({"mcp"})
    assert Settings().channels.delegated() == frozenset()


def test_an_environment_value_that_is_not_utf8_is_a_config_error_naming_the_variable(
    tmp_path: Path,
) -> None:
    # How os.environ holds a byte that is not UTF-8: a lone surrogate.
    environ = {"SPYGLASS_LLM__MODEL": "caf\udce9"}
    with pytest.raises(ConfigError, match="SPYGLASS_LLM__MODEL is not valid UTF-8"):
        load_settings(Paths(tmp_path), environ=environ)
    with pytest.raises(ConfigError, match=r"llm\.model is not valid UTF-8"):
        load_settings(Paths(tmp_path), environ={}, overrides={"llm.model": "caf\udce9"})


def _models(model: type[BaseModel] = Settings) -> Iterator[type[BaseModel]]:
    """``model`` and every section model under it, with the provider tables."""
    yield model
    for field in model.model_fields.values():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            yield from _models(annotation)
    if model is Settings:
        yield ProviderSettings


@pytest.mark.parametrize("toml", [None, ""], ids=["no file", "an empty file"])
def test_settings_with_nothing_set_are_the_defaults_as_validation_gives_them(
    tmp_path: Path, toml: str | None
) -> None:
    # Nothing set: the defaults are constructed, not validated; they must be the same values.
    loaded = load_settings(_paths(tmp_path, toml), environ={})
    validated = Settings.model_validate({})
    assert loaded == validated
    assert loaded.model_dump() == validated.model_dump()
    assert loaded.model_fields_set == validated.model_fields_set == set()
    assert loaded.public_dict() == validated.public_dict()


@pytest.mark.parametrize("model", list(dict.fromkeys(_models())), ids=lambda model: model.__name__)
def test_every_section_constructed_with_its_defaults_equals_it_validated_empty(
    model: type[BaseModel],
) -> None:
    # A default that validation would change (a validate_default, a model validator that
    # rewrites its section) would make constructed defaults differ from validated ones.
    assert all(not field.validate_default for field in model.model_fields.values())
    assert not model.model_config.get("validate_default")
    assert model.model_construct() == model.model_validate({})


def test_settings_with_something_set_are_still_validated_whole(tmp_path: Path) -> None:
    paths = _paths(tmp_path, "[fetch]\nmax_chars = 10\n")
    with pytest.raises(ConfigError, match=r"fetch\.max_chars"):
        load_settings(paths, environ={})
    with pytest.raises(ConfigError, match="SPYGLASS_STATE__BACKEND"):
        load_settings(_paths(tmp_path / "none"), environ={"SPYGLASS_STATE__BACKEND": "cloud"})


def test_a_default_setting_changed_later_is_still_validated(tmp_path: Path) -> None:
    settings = load_settings(_paths(tmp_path), environ={})
    settings.fetch.https_only = True
    assert settings.fetch.https_only is True
    with pytest.raises(ValueError, match="max_chars"):
        settings.fetch.max_chars = 10


def test_an_environment_variable_is_read_as_its_setting_and_whether_it_is_a_secret() -> None:
    from spyglass.settings.loading import environment_setting

    assert environment_setting("SPYGLASS_SEARCH__PROVIDERS") == ("search.providers", False)
    assert environment_setting("SPYGLASS_SEARCH__SEARXNG__BASE_URL") == (
        "search.searxng.base_url",
        False,
    )
    assert environment_setting("SPYGLASS_SEARCH__BRAVE__API_KEY") == (
        "search.brave.api_key",
        True,
    )
    assert environment_setting("SPYGLASS_LLM__API_KEY") == ("llm.api_key", True)
    assert environment_setting("SPYGLASS_STATE__DATABASE_URL") == ("state.database_url", True)
    for name in ("SPYGLASS_HOME", "SPYGLASS_NOPE__X", "SPYGLASS_SEARCH", "SEARCH__PROVIDERS"):
        assert environment_setting(name) is None
