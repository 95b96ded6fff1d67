"""The system prompt."""

from __future__ import annotations

from spyglass.capabilities import health
from spyglass.llm.prompt import NO_TOOLS, system_prompt


def test_the_prompt_lists_the_offered_tools_and_warns_about_web_content() -> None:
    prompt = system_prompt([health.CAPABILITY])
    assert "system_health" in prompt
    assert "untrusted_tool_output" in prompt and "cite" in prompt


def test_without_tools_the_prompt_says_so() -> None:
    assert NO_TOOLS in system_prompt([])


def test_an_override_replaces_the_prompt_and_may_place_the_tool_list() -> None:
    assert system_prompt([health.CAPABILITY], "Be brief.\n{tools}").startswith("Be brief.\nYou can")
