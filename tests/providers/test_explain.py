"""A provider's own explanation of an error, found in whatever JSON it sent."""

from __future__ import annotations

from spyglass.providers.explain import explain


def test_the_explanation_is_found_in_the_providers_error_body() -> None:
    assert explain(b'{"error": {"message": "quota exceeded"}}') == "quota exceeded"


def test_a_body_that_is_not_json_explains_nothing() -> None:
    assert explain(b"<html>bad gateway</html>") == ""
    assert explain(b"\xff\xfe") == ""


def test_a_body_nested_deeper_than_python_reads_explains_nothing() -> None:
    assert explain(b"[" * 100_000 + b"]" * 100_000) == ""
