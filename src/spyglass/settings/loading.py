"""Loading the settings: defaults, the TOML file, ``SPYGLASS_*`` variables, flags."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, get_args

from pydantic import ValidationError

from spyglass.errors import ConfigError
from spyglass.paths import Paths
from spyglass.settings.base import ENV_PREFIX
from spyglass.settings.model import Settings


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


def environment_setting(name: str) -> tuple[str, bool] | None:
    """The setting an environment variable sets, as ``(dotted key, is a secret)``; ``None``
    when ``name`` is not a ``SPYGLASS_<SECTION>__<KEY>`` variable of a known setting.

    Provider tables (``search.brave``, ``fetch.firecrawl``) take any provider name, so
    ``SPYGLASS_SEARCH__ACME__API_KEY`` is a (secret) setting.
    """
    from pydantic import BaseModel, SecretStr

    from spyglass.settings.search import ProviderSettings

    if not name.startswith(ENV_PREFIX) or name == "SPYGLASS_HOME" or "__" not in name:
        return None
    path = [part.lower() for part in name[len(ENV_PREFIX) :].split("__")]
    model: type[BaseModel] = Settings
    for index, part in enumerate(path):
        field = model.model_fields.get(part)
        if field is None:
            if model.model_config.get("extra") != "allow" or index == len(path) - 1:
                return None
            model = ProviderSettings
            continue
        kinds = [field.annotation, *get_args(field.annotation)]
        if index == len(path) - 1:
            secret = any(kind is SecretStr for kind in kinds)
            return ".".join(path), secret
        nested = [k for k in kinds if isinstance(k, type) and issubclass(k, BaseModel)]
        if not nested:
            return None
        model = nested[0]
    return None


def _validate(merged: dict[str, Any], sources: Mapping[tuple[str, ...], str]) -> Settings:
    if not merged:
        # Nothing was set (no file or an empty one, no SPYGLASS_* variable, no flag): the
        # settings are the defaults, which pydantic takes as written without validating them
        # (no field sets validate_default, and the model validators accept the defaults; a
        # test holds both), so they are constructed instead. No validator is built then,
        # which spares a command pydantic's schema building, its plugin scan and the
        # importlib.metadata that scan imports: about a tenth of a refused call's work
        # (docs/benchmarks.md, start-up).
        return Settings.model_construct()
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
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror})") from None
    text = _decoded(path, raw)
    # tomllib compiles its patterns when imported (about a tenth of a refused command's own
    # work): a home without a settings file does not pay for it (docs/benchmarks.md).
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}); fix or remove the file") from None
    except RecursionError:
        raise ConfigError(
            f"{path}: nests arrays or tables deeper than can be read; fix or remove the file"
        ) from None


_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def _decoded(path: Path, raw: bytes) -> str:
    """The file's text. TOML is UTF-8; a leading UTF-8 byte-order mark (Windows Notepad writes
    one) is read past, since it says nothing but "UTF-8" (docs/configuration.md)."""
    if raw.startswith(_UTF16_BOMS):
        raise ConfigError(
            f"{path}, line 1: saved as UTF-16, but settings files are UTF-8; "
            "save it again as UTF-8 (in Notepad: Save as, Encoding: UTF-8)"
        )
    raw = raw.removeprefix(_UTF8_BOM)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ConfigError(
            f"{path}, line {line}, column {column}: byte 0x{raw[exc.start]:02X} is not UTF-8, "
            "and settings files are UTF-8; save it again as UTF-8"
        ) from None


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
        where = sources.get(key) or _source_under(key, sources)
        if error["type"] == "extra_forbidden":
            what = (
                "is not a setting (check the spelling; `spyglass config show` lists the "
                "settings and names every key that is not one)"
            )
        elif error["type"] == "value_error" and "error" in error.get("ctx", {}):
            # Our own validators' words, as written (pydantic would prefix "Value error, ").
            what = str(error["ctx"]["error"])
            if what.startswith(f"{dotted}.") or what.startswith(f"{dotted}:"):
                # A section's check names the key inside it itself.
                lines.append(f"{where}: {what}")
                continue
            what = f": {what}"
        else:
            message = str(error["msg"])
            what = message[:1].lower() + message[1:]
        lines.append(f"{where}: {dotted} {what}".replace(" : ", ": "))
    return "invalid settings:\n  " + "\n  ".join(lines)


def _source_under(key: tuple[str, ...], sources: Mapping[tuple[str, ...], str]) -> str:
    """Where the keys inside section ``key`` came from, when they share one source."""
    found = {source for name, source in sources.items() if name[: len(key)] == key}
    return found.pop() if len(found) == 1 else "settings"
