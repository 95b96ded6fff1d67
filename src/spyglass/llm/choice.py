"""Which model the console talks to when the owner did not say: found, picked or remembered.

:class:`ModelFinder` looks at what the owner set (``llm.base_url``, ``llm.model``) and fills
in what is missing from the model servers found on loopback (:mod:`spyglass.llm.discovery`):

- both set: nothing is looked for;
- ``llm.base_url`` set, ``llm.model`` not: the server's own list; one model is used;
- neither: the usual local servers; one model on one server is used;
- several models: the one the owner picked before (remembered in a small file of the home),
  else the owner is asked to pick (``serve`` prints the list, the console offers it);
- none: the message says so, with the two settings to set.

When nothing was found (the server was not up yet), the next turn that needs the model
looks again. The chosen server and model are written into the ``llm`` settings the model
client reads, so every message naming the model names the one in use.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from spyglass.llm.client import ModelUnavailable
from spyglass.llm.discovery import (
    LOCAL_SERVERS,
    LOOPBACK_HOST,
    PROBE_SECONDS,
    FoundModel,
    FoundServer,
    LocalServer,
    ServerDown,
    discover,
    list_models,
)
from spyglass.settings import LLMSettings

#: What the finder knows: the owner set both; one model is in use; the owner must pick;
#: nothing answered.
Status = Literal["configured", "using", "choose", "none"]

SETTINGS_HINT = (
    "set llm.base_url to its OpenAI-compatible address and llm.model to the model's name "
    "(SPYGLASS_LLM__BASE_URL and SPYGLASS_LLM__MODEL, or [llm] in config.toml)"
)


class ModelFinder:
    """Fills in the model server and model the owner left unset. One per service."""

    def __init__(
        self,
        settings: LLMSettings,
        *,
        servers: Sequence[LocalServer] = LOCAL_SERVERS,
        memory: Path | None = None,
        timeout: float = PROBE_SECONDS,
        details: bool = False,
    ) -> None:
        self.settings = settings
        #: Also ask each model's tool support where the server tells it (Ollama).
        self.details = details
        self.servers = tuple(servers)
        self.memory = memory
        self.timeout = timeout
        # What the owner set is read once, before the finder writes its own finding in.
        self.owner_base_url = "base_url" in settings.model_fields_set
        self.owner_model = bool(settings.model)
        self.found: list[FoundServer] = []
        self.status: Status = "configured" if self.owner_base_url and self.owner_model else "none"
        self.message = ""
        #: When the owner must act: what is wrong, and the one thing to do.
        self.problem = ""
        self.fix = ""

    @property
    def settled(self) -> bool:
        """Whether a server and model are decided (nothing to look for before a turn)."""
        return self.status in ("configured", "using")

    async def find(self) -> str:
        """Look for the servers and models, decide what to use, and say it in one line."""
        self.problem = self.fix = ""
        if self.status == "configured":
            self.message = f"using {self.settings.model or 'the model'} at {self.settings.base_url}"
            return self.message
        if self.owner_base_url:
            try:
                models = await list_models(
                    self.settings.base_url, api_key=self.api_key(), timeout=self.timeout
                )
            except ServerDown:
                # Not up yet: the first turn that needs it looks again.
                self.found = []
                self.status = "none"
                self.message = (
                    f"the model server at {self.settings.base_url} does not answer yet; "
                    "the first turn asks it again"
                )
                return self.message
            if models is None:
                # A server without a model list is asked as before, without a model name.
                self.found = []
                self.status = "configured"
                self.message = (
                    f"using the model server at {self.settings.base_url}, which lists no "
                    "models (set llm.model to name one)"
                )
                return self.message
            self.found = [FoundServer("the model server", self._base(), tuple(models))]
        else:
            self.found = await discover(self.servers, timeout=self.timeout, details=self.details)
        self._decide()
        return self.message

    async def ensure(self) -> None:
        """Before a model request: look again if nothing is decided yet; raise
        :class:`ModelUnavailable` when the owner must act first."""
        if self.settled:
            return
        await self.find()
        if self.settled or (self.owner_base_url and not self.found):
            return
        raise ModelUnavailable(self.message)

    def choose(self, base_url: str, model: str) -> None:
        """Use ``model`` of the found server at ``base_url``, and remember it.

        Raises ``ValueError`` when that server or model was not found.
        """
        if not self._listed(base_url, model):
            raise ValueError(f"no model {model!r} was found at {base_url}")
        self._use(base_url, model)
        self._remember(base_url, model)

    def as_dict(self) -> dict[str, Any]:
        """What was found and what is in use, as plain data (the API and ``--json``)."""
        using = self.settled
        return {
            "status": self.status,
            "message": self.message,
            "base_url": self.settings.base_url if using else None,
            "model": (self.settings.model or None) if using else None,
            "servers": [server.as_dict() for server in self.found],
        }

    def _decide(self) -> None:
        candidates = [
            (server, model)
            for server in self.found
            for model in server.models
            if not self.owner_model or model.name == self.settings.model
        ]
        remembered = self._remembered()
        for server, model in candidates:
            if remembered == (server.base_url, model.name):
                self._use(server.base_url, model.name, server)
                return
        if len(candidates) == 1:
            server, model = candidates[0]
            self._use(server.base_url, model.name, server)
            return
        if candidates:
            self.status = "choose"
            listed = ", ".join(f"{m.name} on {s.name} at {s.address}" for s, m in candidates)
            self._problem(
                f"found several models: {listed}",
                "pick one in the console's header, or set llm.model (and llm.base_url)",
                ". ",
            )
            return
        self.status = "none"
        if self.found:
            servers = ", ".join(f"{s.name} at {s.address}" for s in self.found)
            lists = (
                f"none lists the model {self.settings.model!r}"
                if self.owner_model
                else "it lists no model"
            )
            self._problem(
                f"{servers} answered but {lists}", f"load or pull a model there, or {SETTINGS_HINT}"
            )
        else:
            ports = ", ".join(str(server.port) for server in self.servers)
            self._problem(
                f"no model server found on this machine (asked {LOOPBACK_HOST} on ports {ports})",
                f"start one (llama-server, Ollama, LM Studio, ...), or {SETTINGS_HINT}",
            )

    def _problem(self, problem: str, fix: str, joint: str = ": ") -> None:
        self.problem, self.fix = problem, fix
        self.message = problem + joint + (fix[0].upper() + fix[1:] if joint == ". " else fix)

    def _use(self, base_url: str, model: str, server: FoundServer | None = None) -> None:
        server = server or next(s for s in self.found if s.base_url == base_url)
        self.settings.base_url = base_url
        self.settings.model = model
        self.status = "using"
        self.message = f"using {model} on {server.name} at {server.address}"

    def _listed(self, base_url: str, model: str) -> bool:
        return any(
            server.base_url == base_url and FoundModel(model) in _names(server)
            for server in self.found
        )

    def _base(self) -> str:
        return self.settings.base_url.rstrip("/")

    def api_key(self) -> str | None:
        key = self.settings.api_key
        return key.get_secret_value() if key is not None else None

    def _remembered(self) -> tuple[str, str] | None:
        if self.memory is None:
            return None
        try:
            data = json.loads(self.memory.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict):
            return None
        base_url, model = data.get("base_url"), data.get("model")
        if isinstance(base_url, str) and isinstance(model, str):
            return base_url, model
        return None

    def _remember(self, base_url: str, model: str) -> None:
        if self.memory is None:
            return
        text = json.dumps({"base_url": base_url, "model": model})
        temporary = self.memory.with_name(self.memory.name + ".tmp")
        try:
            self.memory.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_text(text, encoding="utf-8")
            os.replace(temporary, self.memory)
        except OSError:
            # Not remembered: the choice still holds until the service stops.
            return


def _names(server: FoundServer) -> list[FoundModel]:
    return [FoundModel(model.name) for model in server.models]
