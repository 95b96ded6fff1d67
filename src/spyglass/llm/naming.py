"""Whether the owner named a model, said the same way at start and in health.

With ``llm.model`` empty the request goes out without ``model``: Ollama and vLLM serving one
model may answer anyway, but a server that needs the name answers ``400 "model is required"``,
so an unset name is said before the first question rather than after it fails.
"""

from __future__ import annotations

from spyglass.settings import LLMSettings

UNSET = (
    "llm.model is not set, so model requests go out without a model name and a server that "
    "needs one refuses them; set llm.model to a model the server serves "
    "(for Ollama, one `ollama list` shows)"
)


def model_problem(settings: LLMSettings) -> str | None:
    """What is wrong with the model name, naming the setting only; ``None`` when set."""
    return None if settings.model.strip() else UNSET
