"""Which static reads look like script shells (``fetch.render = "auto"`` renders only those)."""

from __future__ import annotations

import pytest

from spyglass.fetch.render.detect import looks_like_shell

ARTICLE = "<p>Sea otters crack open shellfish with rocks they keep under their forelegs.</p>" * 8


@pytest.mark.parametrize(
    ("body", "sign"),
    [
        ('<div id="root"></div><script src="/static/js/main.js"></script>', "empty_app_root"),
        (
            '<div id="app"><!-- mounted --></div><script type="module" src="/a.js"></script>',
            "empty_app_root",
        ),
        ('<div id="__next"></div><script id="__NEXT_DATA__">{}</script>', "empty_app_root"),
        ("<app-root></app-root><script src=main.js></script>", "empty_app_root"),
        (
            "<noscript>You need to enable JavaScript to run this app.</noscript>"
            "<main></main><script src=/bundle.js></script>",
            "noscript_asks_for_javascript",
        ),
        (
            "<noscript>This site requires JavaScript.</noscript><script src=/b.js></script>",
            "noscript_asks_for_javascript",
        ),
        (
            "<noscript>Bitte aktivieren Sie JavaScript, um diese Seite zu nutzen.</noscript>"
            '<div id="seite"></div><script src=/app.js></script>',
            "noscript_asks_for_javascript",
        ),
        (
            "<noscript>Veuillez activer Java-Script dans votre navigateur.</noscript>"
            "<script src=/app.js></script>",
            "noscript_asks_for_javascript",
        ),
    ],
)
def test_an_empty_shell_with_a_script_is_taken_for_a_shell(body: str, sign: str) -> None:
    verdict = looks_like_shell(f"<html><head><title>App</title></head><body>{body}</body></html>")
    assert verdict.shell is True
    assert sign in verdict.signs


def test_a_page_with_readable_text_is_not_a_shell_whatever_scripts_it_carries() -> None:
    html = (
        '<html><body><div id="root"><article><h1>Otters</h1>'
        f"{ARTICLE}</article></div>"
        "<noscript>Please enable JavaScript for comments.</noscript>"
        '<script id="__NEXT_DATA__">{}</script><script src="/_next/static/app.js"></script>'
        "</body></html>"
    )
    verdict = looks_like_shell(html)
    assert verdict.shell is False
    assert verdict.visible_chars > 400


def test_a_short_page_without_scripts_is_just_short() -> None:
    assert (
        looks_like_shell('<html><body><div id="root"></div><h1>Hi</h1></body></html>').shell
        is False
    )


def test_a_page_with_scripts_but_no_sign_of_building_itself_is_not_a_shell() -> None:
    html = "<html><body><p>Moved.</p><script>console.log('hi')</script></body></html>"
    assert looks_like_shell(html).shell is False


def test_a_forum_that_puts_its_posts_in_noscript_is_read_statically() -> None:
    # Discourse-style: scripts build the page, but the whole thread is in <noscript>, and the
    # static read already gives it to the model.
    html = (
        '<html><body><section id="main"></section><noscript><div class="topic">'
        f"{ARTICLE}</div><p>This forum works best with JavaScript enabled.</p></noscript>"
        '<script type="module" src="/start-discourse.js"></script></body></html>'
    )
    assert looks_like_shell(html).shell is False


def test_text_inside_scripts_styles_and_templates_is_not_visible_text() -> None:
    filler = "x " * 1000
    html = (
        f'<html><body><div id="root"></div><script>var s = "{filler}";</script>'
        f"<style>/* {filler} */</style><template><p>{filler}</p></template></body></html>"
    )
    verdict = looks_like_shell(html)
    assert verdict.shell is True
    assert verdict.visible_chars == 0


@pytest.mark.parametrize("html", ["", "   ", "<script>", "not html at all"])
def test_markup_that_is_empty_or_broken_is_never_a_shell(html: str) -> None:
    assert looks_like_shell(html).shell is False


def test_an_xhtml_shell_that_declares_its_encoding_is_judged_like_any_other() -> None:
    html = (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<html xmlns="http://www.w3.org/1999/xhtml"><body><div id="root"></div>'
        '<script src="/main.js"></script></body></html>'
    )
    verdict = looks_like_shell(html)
    assert verdict.shell is True
    assert "empty_app_root" in verdict.signs


def test_an_xhtml_page_with_text_is_measured_not_taken_for_empty() -> None:
    html = (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        f"<html><body><article>{ARTICLE}</article><script src=/a.js></script></body></html>"
    )
    verdict = looks_like_shell(html)
    assert verdict.shell is False
    assert verdict.visible_chars > 400


@pytest.mark.parametrize(
    "body",
    [
        '<script src="/bundle.js"></script>',
        '<div id="page-7f3a"></div><script type="module">import("/app.js")</script>',
        '<div class="spinner">Loading…</div><script src="/app.js"></script>',
        "<section id=main><p> Please wait </p></section><script src=/start.js></script>",
    ],
)
def test_a_body_that_shows_nothing_but_runs_a_script_is_a_shell_wherever_it_mounts(
    body: str,
) -> None:
    verdict = looks_like_shell(f"<html><head><title>App</title></head><body>{body}</body></html>")
    assert verdict.shell is True
    assert "nothing_shown" in verdict.signs


@pytest.mark.parametrize(
    "body",
    [
        # Data, not code: a browser runs none of it.
        '<script type="application/ld+json">{"@type": "Article"}</script>',
        '<script type="text/template"><p>{{ title }}</p></script>',
        # A script element with nothing to run.
        "<script></script>",
        # Scripts, but the reader without them is given the thread.
        f"<noscript><div>{ARTICLE}</div></noscript><script src=/forum.js></script>",
    ],
)
def test_an_empty_body_without_code_to_run_or_with_its_text_in_noscript_is_not_a_shell(
    body: str,
) -> None:
    assert looks_like_shell(f"<html><body>{body}</body></html>").shell is False
