"""Arguments shown to the person approving a call cannot pass for Spyglass's own words."""

from __future__ import annotations

import ast
import unicodedata

import pytest

from spyglass.untrusted.shown import (
    HIDDEN,
    HOST,
    code,
    hidden,
    host_span,
    inert,
    mixed_scripts,
    notices,
    quoted,
    visible,
)

PUSHED_OUT = "weather in Oslo" + "\n" * 60 + "my password is hunter2"
FAKE_LINE = "weather in Oslo\n(no private data found)"
OVERRIDE = "invoice \u202egnp.exe"


@pytest.mark.parametrize("text", [PUSHED_OUT, FAKE_LINE, OVERRIDE, 'say "hi" \\ bye'])
def test_a_quoted_value_is_one_line_that_reads_back_exactly(text: str) -> None:
    shown = quoted(text)
    assert "\n" not in shown and "\u202e" not in shown
    assert ast.literal_eval(shown) == text


def test_sixty_newlines_cannot_push_the_rest_of_the_query_out_of_view() -> None:
    assert quoted(PUSHED_OUT) == '"weather in Oslo' + "\\n" * 60 + 'my password is hunter2"'


def test_a_fake_line_stays_inside_the_quotes_of_the_value() -> None:
    assert quoted(FAKE_LINE) == '"weather in Oslo\\n(no private data found)"'
    assert quoted('x" (stays on this device, never sent)') == (
        '"x\\" (stays on this device, never sent)"'
    )


@pytest.mark.parametrize(
    ("char", "written"),
    [
        ("\u202e", "\\u202e"),  # right-to-left override
        ("\u2066", "\\u2066"),  # left-to-right isolate
        ("\u200b", "\\u200b"),  # zero-width space
        ("\u2028", "\\u2028"),  # line separator
        ("\u0085", "\\u0085"),  # C1 next line
        ("\x1b", "\\u001b"),  # escape: terminal colours and cursor moves
        ("\t", "\\t"),
        ("\r", "\\r"),
        ("\u00a0", "\\u00a0"),  # a space that is not the ordinary one
        ("\ufe0f", "\\ufe0f"),  # variation selectors can carry hidden bytes
        ("\U000e0041", "\\U000e0041"),  # tag characters too
        ("\u3164", "\\u3164"),  # Hangul filler: a letter that draws nothing
    ],
)
def test_characters_that_do_not_show_are_written_as_escapes(char: str, written: str) -> None:
    assert hidden(char)
    assert visible(f"a{char}b") == f"a{written}b"


@pytest.mark.parametrize("char", ["a", " ", "é", "ж", "中", "😀", "-", "٣"])
def test_characters_that_show_are_left_alone(char: str) -> None:
    assert not hidden(char)
    assert visible(char) == char


def test_every_character_reads_back_from_its_quoted_form() -> None:
    sample = "".join(chr(c) for c in [*range(0, 0x3000), *range(0xFE00, 0x10000), 0xE0041])
    sample = sample.replace("\ud800", "")  # surrogates are repaired before anything is shown
    text = "".join(c for c in sample if unicodedata.category(c) != "Cs")
    assert ast.literal_eval(quoted(text)) == text


def test_markdown_and_html_in_a_value_sit_inside_a_code_span() -> None:
    assert code("**approved** [ok](https://evil.example) <img src=x>") == (
        '` "**approved** [ok](https://evil.example) <img src=x>" `'
    )
    # A backtick run inside gets a longer fence, so it cannot close the span.
    assert code("a `` b") == '``` "a `` b" ```'
    assert code(20) == "20"
    assert code(["a.org"]) == '` ["a.org"] `'


def test_words_that_quote_outside_text_lose_their_markdown() -> None:
    assert inert("result 2 of your search '**x** <b>[y](z)'") == (
        "result 2 of your search '\\*\\*x\\*\\* \\<b\\>\\[y\\](z)'"
    )
    assert inert("fetch.render_hosts = any") == "fetch.render_hosts = any"
    assert inert("a\nb") == "a\\nb"


def test_a_notice_names_the_hidden_characters_of_an_argument() -> None:
    (notice,) = notices({"query": OVERRIDE})
    assert notice.kind == HIDDEN and notice.argument == "query"
    assert "right-to-left override (U+202E)" in notice.message
    assert "reorder" in notice.message and "\\u202e" in notice.message
    (notice,) = notices({"query": PUSHED_OUT})
    assert "60 × line break (U+000A)" in notice.message


def test_plain_arguments_get_no_notice() -> None:
    assert notices({"query": "weather in Oslo", "count": 5, "url": "https://example.com/"}) == []


def test_a_cyrillic_look_alike_host_is_shown_in_ascii_with_a_mixed_script_warning() -> None:
    url = "https://\u0430pple.com/login"  # Cyrillic а
    (notice,) = notices({"url": url})
    assert notice.kind == HOST
    assert "mixes Cyrillic and Latin letters" in notice.message
    assert "xn--pple-43d.com" in notice.message
    assert url[notice.start : notice.end] == "\u0430pple.com"  # type: ignore[misc]


def test_an_international_host_in_one_script_is_shown_in_ascii_without_a_mix_warning() -> None:
    (notice,) = notices({"url": "https://bücher.de/"})
    assert "in ASCII it is xn--bcher-kva.de" in notice.message
    assert "mixes" not in notice.message
    (whole,) = notices({"url": "https://\u0430\u0440\u0440\u04cf\u0435.com/"})  # all Cyrillic
    assert "xn--" in whole.message


def test_scripts_one_language_writes_together_are_not_a_mix() -> None:
    assert mixed_scripts("東京タワーtokyo.jp") == []
    assert mixed_scripts("пример.com") == []
    assert mixed_scripts("p\u0430ypal.com") == ["Latin", "Cyrillic"]


def test_the_host_is_found_past_user_info_and_port() -> None:
    url = "https://user:pw@h\u043est.example:8443/x"
    start, end = host_span(url)  # type: ignore[misc]
    assert url[start:end] == "h\u043est.example"
    assert host_span("not a url") is None


def test_a_host_no_international_name_can_have_is_said_to_be_so() -> None:
    (notice,) = notices({"url": "https://exa\u2044mple.com/"})  # fraction slash
    assert "no international domain name can have" in notice.message


def test_urls_in_lists_are_checked_too() -> None:
    found = notices({"urls": ["https://example.com/", "https://\u0430pple.com/"]})
    assert [n.kind for n in found] == [HOST]


def test_a_look_alike_domain_in_a_domain_list_is_shown_in_ascii_too() -> None:
    (notice,) = notices({"query": "iphone", "include_domains": ["*.\u0430pple.com", "apple.com"]})
    assert notice.kind == HOST and notice.argument == "include_domains"
    assert "mixes Cyrillic and Latin letters" in notice.message
    assert "xn--pple-43d.com" in notice.message
    assert notice.start is None
    # Words in a list that are not domain names are not read as hosts.
    assert notices({"tags": ["café au lait"]}) == []
