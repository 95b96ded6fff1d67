"""Finding the model servers running on this machine, and the models each one serves.

Only loopback is ever asked (``127.0.0.1``): the usual ports of the local model servers are
tried at once, each with a short deadline, for their OpenAI-compatible model list
(``/v1/models``) and, for Ollama, its own (``/api/tags``, and ``/api/show`` for whether a
model takes tools). A port where nothing listens costs a refused connection, nothing more.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from spyglass.errors import UpstreamError

#: The one host discovery asks: this machine, never the network.
LOOPBACK_HOST = "127.0.0.1"

#: How long one server has to answer its model list. Local servers answer at once; a port
#: held by something else that never answers must not hold ``serve`` up.
PROBE_SECONDS = 1.5

#: Models whose tool support is asked of Ollama at most (one request each).
MAX_DETAILED_MODELS = 32


class ServerDown(UpstreamError):
    """Nothing answered at the address asked (refused, unreachable or too slow)."""


@dataclass(frozen=True)
class LocalServer:
    """A kind of model server and the loopback port it listens on by default."""

    name: str
    port: int
    #: Speaks Ollama's own API besides the OpenAI one (``/api/tags``, ``/api/show``).
    ollama: bool = False


#: The usual local model servers, by their default ports.
LOCAL_SERVERS: tuple[LocalServer, ...] = (
    LocalServer("llama-server", 8080),
    LocalServer("Ollama", 11434, ollama=True),
    LocalServer("LM Studio", 1234),
    LocalServer("vLLM", 8000),
    LocalServer("Jan", 1337),
    LocalServer("KoboldCpp", 5001),
    LocalServer("text-generation-webui", 5000),
    LocalServer("SGLang", 30000),
)


@dataclass(frozen=True)
class FoundModel:
    """One model a server lists; ``tools`` is whether it takes tools, None when unknown."""

    name: str
    tools: bool | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "tools": self.tools}


@dataclass(frozen=True)
class FoundServer:
    """A model server that answered, with the models it lists."""

    name: str
    base_url: str
    models: tuple[FoundModel, ...] = field(default_factory=tuple)

    @property
    def address(self) -> str:
        """``host:port``, as people read it."""
        return self.base_url.split("://", 1)[-1].removesuffix("/v1").rstrip("/")

    def as_dict(self) -> dict[str, Any]:
        return {
            "server": self.name,
            "base_url": self.base_url,
            "models": [model.as_dict() for model in self.models],
        }


async def discover(
    servers: Sequence[LocalServer] = LOCAL_SERVERS,
    *,
    timeout: float = PROBE_SECONDS,
    details: bool = False,
) -> list[FoundServer]:
    """The servers of ``servers`` that answer on loopback with a model list, in that order.

    ``details`` asks Ollama, model by model, whether each takes tools.
    """
    async with _client(timeout) as client:
        found = await asyncio.gather(
            *(_probe(client, server, details=details) for server in servers)
        )
    return [server for server in found if server is not None]


async def list_models(
    base_url: str, *, api_key: str | None = None, timeout: float = PROBE_SECONDS
) -> list[FoundModel] | None:
    """The models the OpenAI-compatible server at ``base_url`` lists; None when it answers
    without a model list. Raises :class:`ServerDown` when nothing answers."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    async with _client(timeout, headers) as client:
        return await _openai_models(client, base_url.rstrip("/"), strict=True)


def _client(timeout: float, headers: dict[str, str] | None = None) -> httpx.AsyncClient:
    # The model servers are the owner's own, on this machine: no proxy from the environment.
    return httpx.AsyncClient(timeout=httpx.Timeout(timeout), trust_env=False, headers=headers or {})


async def _probe(
    client: httpx.AsyncClient, server: LocalServer, *, details: bool
) -> FoundServer | None:
    root = f"http://{LOOPBACK_HOST}:{server.port}"
    base_url = f"{root}/v1"
    models = await _openai_models(client, base_url)
    if server.ollama:
        native = await _ollama_models(client, root)
        if native is not None:
            models = native
            if details:
                models = await _ollama_tools(client, root, models)
    if models is None:
        return None
    return FoundServer(server.name, base_url, tuple(models))


async def _get_json(client: httpx.AsyncClient, url: str, *, strict: bool = False) -> Any:
    """The JSON body of ``url``; None when the answer is not one. ``strict`` raises
    :class:`ServerDown` when there is no answer at all."""
    try:
        response = await client.get(url)
        if response.status_code != 200:
            return None
        return response.json()
    except (httpx.ConnectError, httpx.TimeoutException) as exc:
        if strict:
            raise ServerDown(str(exc)) from None
        return None
    except (httpx.HTTPError, httpx.InvalidURL, ValueError):
        return None


async def _openai_models(
    client: httpx.AsyncClient, base_url: str, *, strict: bool = False
) -> list[FoundModel] | None:
    body = await _get_json(client, f"{base_url}/models", strict=strict)
    if not isinstance(body, dict) or not isinstance(body.get("data"), list):
        return None
    names = [item.get("id") for item in body["data"] if isinstance(item, dict)]
    return [FoundModel(name) for name in _unique(names)]


async def _ollama_models(client: httpx.AsyncClient, root: str) -> list[FoundModel] | None:
    body = await _get_json(client, f"{root}/api/tags")
    if not isinstance(body, dict) or not isinstance(body.get("models"), list):
        return None
    names = [
        item.get("name") or item.get("model") for item in body["models"] if isinstance(item, dict)
    ]
    return [FoundModel(name) for name in _unique(names)]


async def _ollama_tools(
    client: httpx.AsyncClient, root: str, models: list[FoundModel]
) -> list[FoundModel]:
    async def one(model: FoundModel) -> FoundModel:
        try:
            response = await client.post(f"{root}/api/show", json={"model": model.name})
            body = response.json() if response.status_code == 200 else None
        except (httpx.HTTPError, ValueError):
            body = None
        capabilities = body.get("capabilities") if isinstance(body, dict) else None
        if not isinstance(capabilities, list):
            return model
        return FoundModel(model.name, "tools" in capabilities)

    asked = await asyncio.gather(*(one(model) for model in models[:MAX_DETAILED_MODELS]))
    return [*asked, *models[MAX_DETAILED_MODELS:]]


def _unique(names: list[Any]) -> list[str]:
    seen: dict[str, None] = {}
    for name in names:
        if isinstance(name, str) and name.strip():
            seen.setdefault(name.strip(), None)
    return list(seen)
