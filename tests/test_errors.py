"""The exception tree: every exception class Spyglass defines is a SpyglassError."""

from __future__ import annotations

from spyglass.errors import RequestRefused, SpyglassError, UpstreamError
from tests.support.exceptions import exception_classes


def test_every_exception_spyglass_defines_derives_from_spyglass_error() -> None:
    classes = exception_classes()
    assert len(classes) >= 12  # the walk really reached the leaves
    strays = sorted(
        f"{c.__module__}.{c.__qualname__}" for c in classes if not issubclass(c, SpyglassError)
    )
    assert strays == []


def test_the_tree_is_shallow_and_its_docstring_names_every_class() -> None:
    import spyglass.errors as errors

    for cls in exception_classes():
        assert cls.__name__ in (errors.__doc__ or ""), cls
        # Shallow: an intermediate base, a leaf, and at most one refinement of a leaf.
        depth = cls.__mro__.index(SpyglassError)
        assert depth <= 3, cls


def test_refusals_carry_a_code_a_message_and_a_status() -> None:
    from spyglass.conversation.turn import TurnRefused
    from spyglass.llm.client import ModelUnavailable
    from spyglass.service.errors import ApiError

    refused = TurnRefused("NOT_FOUND", "no such conversation", 404)
    api = ApiError(409, "CONFLICT", "busy")
    assert isinstance(refused, RequestRefused) and isinstance(api, RequestRefused)
    assert (refused.code, refused.message, refused.status) == (
        "NOT_FOUND",
        "no such conversation",
        404,
    )
    assert (api.code, api.message, api.status) == ("CONFLICT", "busy", 409)
    assert isinstance(ModelUnavailable("down"), UpstreamError)
