"""The document tree as a browser builds it: libxml2's, or the standard's where they differ."""

from __future__ import annotations

import threading

from lxml import etree
from lxml import html as lxml_html

from spyglass.extract.tree import meta_contents, parse, texts_inside, typed_scripts


def _body(html: str) -> lxml_html.HtmlElement:
    tree = parse(html)
    assert tree is not None
    body = tree.find("body")
    assert body is not None
    return body


def test_a_block_ends_at_its_end_tag_though_a_div_inside_it_was_left_open() -> None:
    # libxml2 ignores </header> while the inner <div> is open; a browser closes both.
    body = _body(
        "<html><body><header><div><a href='/'>Home</a></header>"
        "<article><p>The story itself.</p></article></body></html>"
    )
    assert [child.tag for child in body] == ["header", "article"]
    header = body.find("header")
    assert header is not None
    assert "The story itself." not in header.text_content()


def test_a_pop_up_closed_early_does_not_swallow_the_page() -> None:
    body = _body(
        "<body><aside class='popup'><div class='outer'><div class='inner'>Sign up</div>"
        "</aside><main><h1>Title</h1><p>First paragraph.</p></main></body>"
    )
    main = body.find("main")
    assert main is not None
    assert main.getparent() is body
    assert main.text_content() == "TitleFirst paragraph."


def test_markup_after_the_closing_html_tag_is_parsed_into_the_body() -> None:
    body = _body(
        "<html><head><title>T</title></head><body><nav>Home</nav></body></html>\n"
        "<div class='post'><p>The article, after the page was closed.</p></div>trailing words"
        "<html><head><title>U</title></head><body><p>A second document.</p></body></html>"
    )
    assert [child.tag for child in body] == ["nav", "div", "p"]
    assert body.text_content().endswith(
        "The article, after the page was closed.trailing wordsA second document."
    )


def test_the_rebuilt_tree_keeps_elements_attributes_text_tails_and_comments_in_order() -> None:
    body = _body(
        "<body><section><div id=a data-x='1' hidden>one <b>two</b> three<!-- note -->"
        "</section><p class='c'>four</p></body>"
    )
    section, paragraph = list(body)
    div = section[0]
    assert (div.get("id"), div.get("data-x"), div.get("hidden")) == ("a", "1", "")
    assert div.text == "one "
    bold = div.find("b")
    assert bold is not None
    assert (bold.text, bold.tail) == ("two", " three")
    assert [(node.text or "").strip() for node in div.iter(etree.Comment)] == ["note"]
    assert paragraph.get("class") == "c"
    elements = list(body.getroottree().iter(etree.Element))
    assert all(isinstance(element, lxml_html.HtmlElement) for element in elements)


def test_characters_a_tree_cannot_hold_are_left_out_of_the_rebuilt_tree() -> None:
    body = _body("<body><ul><div>tab\x0bbed \x01text</ul><p>after</p></body>")
    assert body.text_content() == "tabbed textafter"


def test_a_deeply_nested_page_is_rebuilt_whole() -> None:
    # Below libxml2's depth limit (256), past which it reads no further.
    body = _body("<body><section>" + "<div>" * 250 + "deep</section><p>after</p></body>")
    assert body.text_content() == "deepafter"
    assert body[-1].tag == "p"


def test_pages_parsed_at_once_in_two_threads_each_get_their_own_tree() -> None:
    pages = {
        name: f"<body><header><div>{name} header</header><p>{name} body</p></body>"
        for name in ("left", "right")
    }
    results: dict[str, str] = {}

    def read(name: str) -> None:
        for _ in range(50):
            body = _body(pages[name])
            results[name] = body[-1].text_content()

    threads = [threading.Thread(target=read, args=(name,)) for name in pages]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert results == {"left": "left body", "right": "right body"}


def test_markup_that_is_no_document_gives_no_tree() -> None:
    assert parse("") is None


def test_an_element_with_a_name_no_tree_can_hold_gives_its_content_to_its_parent() -> None:
    body = _body(
        '<body><section><div>open</section><metaname="copyright"><p>one</p>two</metaname="x">'
        "<p>three</p></body>"
    )
    assert body.text_content() == "openonetwothree"
    assert [child.tag for child in body] == ["section", "p", "p"]


def test_no_tree_is_nested_deeper_than_libxml2_builds_one() -> None:
    # A block left open (which asks for the standard's tree) on a page nested past
    # libxml2's limit: the readers' walks never get a deeper tree than libxml2's.
    tree = parse("<body><section>" + "<div>" * 300 + "deep</section><p>after</p></body>")
    assert tree is not None
    assert max(sum(1 for _ in element.iterancestors()) for element in tree.iter()) <= 256


def test_a_block_libxml2_closed_as_a_browser_does_keeps_libxml2s_tree() -> None:
    # libxml2 reports </section> over the open <b> but closes both, as the standard does;
    # its tree stays (the standard's would also move the stray text out of the table).
    body = _body("<body><section><b>bold</section><table><tr><td>cell</td></tr>x</table></body>")
    assert [child.tag for child in body] == ["section", "table"]
    table = body.find("table")
    assert table is not None
    assert table.text_content() == "cellx"


def test_a_button_closed_around_an_open_div_holds_nothing_after_it() -> None:
    # libxml2 ignores </button> while the <div> is open, and the button then holds the page.
    body = _body("<body><button><div>Menu</button> and</div><main><p>Text.</p></main></body>")
    main = body.find("main")
    assert main is not None
    assert main.getparent() is body


def test_texts_inside_an_element_are_each_read_once_in_document_order() -> None:
    body = _body(
        "<body><p>before</p><a href='/a'>one<!-- note -->two<b>three</b></a> between"
        "<div><a href='/b'>four<span><a href='/c'>five</a></span></a></div></body>"
    )
    # A comment's text is not the page's; the text after it is. A link the parser nested in
    # another is read with the outer one, not twice.
    assert list(texts_inside(body, "a")) == ["one", "two", "three", "four", "five"]


def test_texts_inside_leave_out_elements_under_what_is_named() -> None:
    body = _body("<body><p>kept</p><nav><p>menu</p></nav><div><p>also kept</p></div></body>")
    assert list(texts_inside(body, "p", not_under=("nav",))) == ["kept", "also kept"]
    assert list(texts_inside(body, "nav")) == ["menu"]


def test_meta_contents_are_every_matching_meta_in_the_pages_order() -> None:
    tree = lxml_html.document_fromstring(
        '<html><head><meta property="og:type" content="article">'
        '<meta property="og:title" content="Kettles"><meta property="og:type">'
        '</head><body><meta property="og:type" content="website"></body></html>'
    )
    assert meta_contents(tree, "property", "og:type") == ["article", "website"]
    assert meta_contents(tree, "name", "og:type") == []


def test_typed_scripts_are_the_texts_of_scripts_of_that_type_only() -> None:
    tree = lxml_html.document_fromstring(
        '<html><head><script type="application/ld+json">{"@type": "Recipe"}</script>'
        '<script>var x = 1;</script><script type="application/ld+json"></script></head>'
        '<body><script type="application/ld+json">{"@type": "Person"}</script></body></html>'
    )
    assert typed_scripts(tree, "application/ld+json") == [
        '{"@type": "Recipe"}',
        '{"@type": "Person"}',
    ]


def test_a_page_that_still_declares_its_byte_encoding_is_read() -> None:
    # lxml refuses decoded text that declares an encoding; the declaration at the start goes.
    body = _body(
        '  <?xml version="1.0" encoding="ISO-8859-7"?>\n<html><body><p>Καλημέρα</p>'
        '<pre>&lt;?xml version="1.0"?&gt; stays in the text</pre></body></html>'
    )
    assert body.findtext("p") == "Καλημέρα"
    assert body.findtext("pre") == '<?xml version="1.0"?> stays in the text'
