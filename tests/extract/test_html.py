"""HTML to Markdown: main content, absolute links, no scripts, visible-text fallback."""

from __future__ import annotations

from lxml import etree
from lxml import html as lxml_html

from spyglass.extract.html import absolute_links, extract_html, readings
from spyglass.extract.tree import parse

ARTICLE = (
    """<html><head><title>T</title><base href="/docs/"><script>var secret=1;</script>
<style>.x{color:red}</style></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article><h1>Guide</h1><h2>Install</h2>
<p>Read <a href="setup.html">the setup page</a> and <a href="javascript:alert(1)">this</a>
before you begin with the installation of the tool on your machine today.</p>
<ul><li>first step of many</li><li>second step of many</li></ul>
<table><tr><th>Name</th><th>Value</th></tr><tr><td>alpha</td><td>1</td></tr></table>
"""
    + "".join(
        f"<p>Step {n} of the guide explains one more part of the tool and how it is used in "
        f"practice, with an example that readers can follow on their own machine.</p>"
        for n in range(8)
    )
    + """
</article><footer>Copyright footer text</footer></body></html>"""
)


def test_main_content_keeps_headings_lists_tables_and_absolute_links() -> None:
    extracted = extract_html(ARTICLE, "https://example.com/guide/index.html")
    text = extracted.markdown
    assert extracted.title == "T"
    assert "## Install" in text or "# Install" in text
    assert "- first step of many" in text
    assert "| alpha | 1 |" in text or "alpha" in text
    assert "[the setup page](https://example.com/docs/setup.html)" in text
    assert "javascript:" not in text
    assert "var secret" not in text
    assert "color:red" not in text


def test_the_parsed_tree_is_lxml_html_s_tree_with_every_element_an_html_element() -> None:
    page = (
        "<html><body><!-- note --><form action='/s'><label>Find <input name=q value=x>"
        "</label><select><option>one</option></select><textarea>t</textarea></form>"
        "<p>Text &amp; <b>bold</b></p></body></html>"
    )
    tree = parse(page)
    assert tree is not None
    reference = lxml_html.document_fromstring(page)
    assert etree.tostring(tree) == etree.tostring(reference)
    assert tree.text_content() == reference.text_content()
    elements = list(tree.iter(etree.Element))
    assert {element.tag for element in elements} >= {"form", "input", "select", "textarea"}
    assert all(isinstance(element, lxml_html.HtmlElement) for element in elements)
    assert isinstance(next(tree.iter(etree.Comment)), lxml_html.HtmlComment)


def test_an_article_after_the_closing_html_tag_is_read() -> None:
    # A template closed the page above its article; a browser still shows what follows.
    paragraphs = "".join(
        f"<p>Paragraph {n} of the article that came after the page was closed, read in full "
        "as a browser shows it to anyone who opens the page.</p>"
        for n in range(6)
    )
    page = (
        "<html><head><title>T</title></head><body><nav>Home</nav></body></html>\n"
        f"<div class='post'><h1>Late article</h1>{paragraphs}</div>"
    )
    assert "Paragraph 3 of the article" in extract_html(page, "https://news.example/a").markdown


def test_a_page_without_an_article_still_yields_its_visible_text() -> None:
    html = (
        "<html><body><div><span>Price: 12 EUR, delivered within three working days</span>"
        "<button>Add to basket</button></div></body></html>"
    )
    extracted = extract_html(html, "https://shop.example/item")
    assert "Price: 12 EUR" in extracted.markdown


def test_markup_that_cannot_be_parsed_gives_empty_text_not_an_error() -> None:
    assert extract_html("", "https://example.com/").markdown == ""


def test_a_page_address_that_does_not_parse_reads_the_page_as_one_without_an_address() -> None:
    para = "The council voted on Tuesday to turn the old depot into a public library. " * 5
    html = f'<html><body><p>{para}</p><p><a href="/minutes">Minutes</a></p></body></html>'
    extracted = extract_html(html, "http://[::1")
    assert "old depot into a public library" in extracted.markdown
    # Without a base the relative link cannot be made absolute: its words stay.
    assert "](/minutes)" not in extracted.markdown


def test_relative_and_protocol_relative_targets_become_absolute() -> None:
    base = "https://example.com/a/b"
    assert absolute_links("[x](../c)", base) == "[x](https://example.com/c)"
    assert absolute_links("[x](//cdn.example.org/f)", base) == "[x](https://cdn.example.org/f)"
    assert absolute_links("![img](pic.png)", base) == "![img](https://example.com/a/pic.png)"
    assert absolute_links("[mail](mailto:a@b.c)", base) == "[mail]"


def test_readings_sharing_lines_get_the_same_links_as_each_would_alone() -> None:
    base = "https://example.com/a/b"
    readings = [
        "# [Home](/)\n\nText with [a link](../c) and [brackets] of its own.\n\n"
        "[mail](mailto:x@y.z)",
        "Text with [a link](../c) and [brackets] of its own.\nNo links here.",
    ]
    known: dict[str, str] = {}
    shared = [absolute_links(text, base, known) for text in readings]
    assert shared == [absolute_links(text, base) for text in readings]
    assert shared[1] == (
        "Text with [a link](https://example.com/c) and [brackets] of its own.\nNo links here."
    )
    # Only lines that may hold a link were rewritten, each once.
    assert len(known) == 3


def test_a_malformed_link_address_keeps_its_words_and_extraction_goes_on() -> None:
    # urljoin raises on a bracketed host that is no IP address; a page must not.
    assert absolute_links("[x](a)", "http://[oops]/") == "[x]"
    assert absolute_links("[x](//[oops]/a)", "https://example.com/") == "[x]"
    para = "The council voted on Tuesday to turn the old depot into a public library. " * 5
    html = (
        '<html><head><base href="http://[oops]/"></head><body><main><article><h1>Depot</h1>'
        f'<p>{para}<a href="http://[ccpa-preferences]/x">privacy choices</a></p><p>{para}</p>'
        "</article></main></body></html>"
    )
    text = extract_html(html, "https://news.example/depot").markdown
    assert "The council voted on Tuesday" in text
    assert "privacy choices" in text


# A shop's product page as shops write them: a declared Product, navigation, breadcrumbs, a
# basket button, the description and specifications, other products, a footer.
PRODUCT = (
    """<html><head><title>Steel kettle | Kitchen shop</title>
<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product",
"name": "Steel kettle", "offers": {"@type": "Offer", "price": "39.00", "priceCurrency": "EUR"}}
</script></head><body><header><nav><a href="/">Home</a> <a href="/kitchen">Kitchen</a>
<a href="/garden">Garden</a> <a href="/offers">Offers</a> <a href="/account">Account</a>
<a href="/basket">Basket</a></nav></header>
<main><ol class="breadcrumbs"><li><a href="/">Home</a></li><li><a href="/kitchen">Kitchen</a></li>
<li>Kettles</li></ol><div class="product"><h1>Steel kettle</h1><p class="price">39.00 EUR</p>
<form action="/basket/add"><button>Add to basket</button></form><div class="description">"""
    + "".join(
        f"<p>The kettle model {i} boils a full litre of water in under three minutes "
        "and keeps it warm for an hour afterwards.</p>"
        for i in range(4)
    )
    + """</div><ul class="specs">
<li><a href="/c/1">Capacity</a>: 1.7 litres</li><li><a href="/c/2">Power</a>: 2200 watts</li>
<li><a href="/c/3">Weight</a>: 1.1 kilograms</li><li><a href="/c/4">Cord</a>: 75 centimetres</li>
<li><a href="/c/5">Colour</a>: brushed steel</li><li><a href="/c/6">Warranty</a>: two years</li>
</ul><div class="care"><p>Descale the kettle every month with a mild solution of citric
acid and plenty of water.</p></div></div>
<section class="related"><h2>Customers also bought</h2><ul>
<li><a href="/p/toaster">Steel toaster</a> 29.00 EUR</li>
<li><a href="/p/jug">Glass jug</a> 19.00 EUR</li>
<li><a href="/p/mug">Tea mug</a> 9.00 EUR</li></ul></section></main>
<footer><a href="/imprint">Imprint and contact</a> <a href="/privacy">Privacy</a></footer>
</body></html>"""
)


def test_specifications_between_extracted_paragraphs_are_kept_without_page_chrome() -> None:
    text = extract_html(PRODUCT, "https://shop.example/kettle").markdown
    assert "The kettle model 0 boils" in text
    assert "Descale the kettle" in text
    assert "39.00 EUR" in text
    assert "[Capacity](https://shop.example/c/1): 1.7 litres" in text
    assert "brushed steel" in text
    chrome = ("Imprint", "Home", "Garden", "Add to basket", "Customers also bought", "Tea mug")
    assert [box for box in chrome if box in text] == []


def test_relative_links_resolve_against_the_page_not_the_site_root() -> None:
    html = (
        "<html><body><article>"
        + "".join(
            f"<p>Step {n} of the guide explains one more part of the tool and how it is used "
            "in practice, with an example that readers can follow on their own machine.</p>"
            for n in range(3)
        )
        + '<p>The options are explained in <a href="next.html">the next chapter</a>, which '
        "lists every one of them with its default value and an example of its use.</p>"
        + "".join(
            f"<p>Part {n} shows how the tool reads its configuration file and which of the "
            "settings can be changed while it runs, and which need a restart.</p>"
            for n in range(3)
        )
        + "</article></body></html>"
    )
    text = extract_html(html, "https://example.com/docs/guide/index.html").markdown
    assert "[the next chapter](https://example.com/docs/guide/next.html)" in text


def test_a_block_repeated_on_the_page_appears_once() -> None:
    post = "<div class='post'><p>{}</p><p>Report this post to the moderators</p></div>"
    bodies = [
        "I replaced the fuse and the kettle now works again, thanks for the advice.",
        "Glad to hear it; the same fuse fails on many older models of that brand.",
        "Mine failed the same way last winter and a new fuse fixed it for good.",
    ]
    html = "<html><body><main>" + "".join(post.format(b) for b in bodies) + "</main></body></html>"
    text = extract_html(html, "https://forum.example/t/1").markdown
    for body in bodies:
        assert body in text
    assert text.count("Report this post to the moderators") == 1


STORY = [
    "The city council voted on Tuesday to turn the old tram depot into a public library, "
    "ending a decade of arguments about what should happen to the building.",
    "Supporters said the depot's high halls were ideal for reading rooms, and that the "
    "neighbourhood had gone without a library since the last one closed in 2009.",
    "Opponents had wanted housing on the site, but the council found that the soil under "
    "the tracks would need years of cleaning before anyone could live there.",
    "Work on the roof starts in the spring, and the library should open its doors to the "
    "first readers in the autumn of the year after next, the mayor told reporters.",
    "The building will keep two of its old trams, one of them restored as a reading corner "
    "for children, the other as a café run by a local charity for young people.",
]

ARTICLE_WITH_BOXES = (
    """<html><head><title>Depot becomes library</title>
<meta property="og:type" content="article"></head><body>
<header><nav><a href="/">News</a> <a href="/city">City</a> <a href="/sport">Sport</a></nav></header>
<main><article><h1>Old tram depot to become a library</h1>
<div class="share-bar"><a href="https://social.example/share">Share on Social</a>
<a href="mailto:?subject=x">Email this story</a></div>"""
    + "".join(f"<p>{p}</p>" for p in STORY)
    + """<div class="author-bio"><p>Jane Miller covers the city hall for the Daily Example.
Follow her on social media.</p></div>
<div class="newsletter"><h3>Sign up for our newsletter</h3>
<p>Get the day's top stories in your inbox every morning.</p>
<form><input type="email"><button>Subscribe</button></form></div>
</article>
<section class="related"><h2>Related stories</h2><ul>"""
    + "".join(
        f'<li><a href="/story/{i}">Council debates the budget for the year {2020 + i}</a></li>'
        for i in range(6)
    )
    + """</ul></section><div class="comments-count"><a href="#c">12 comments</a></div></main>
<footer><p>Copyright 2025 Daily Example. All rights reserved.</p></footer></body></html>"""
)


def story_page(head: str = "") -> str:
    """The story as a page's one article, under ``head``'s tags."""
    paragraphs = "".join(f"<p>{p}</p>" for p in STORY)
    return f"<html><head>{head}</head><body><article>{paragraphs}</article></body></html>"


def test_related_stories_and_boxes_around_an_article_are_left_out() -> None:
    text = extract_html(ARTICLE_WITH_BOXES, "https://news.example/city/depot-library").markdown
    for paragraph in STORY:
        assert paragraph in text
    assert "Council debates the budget" not in text
    assert "Sign up for our newsletter" not in text
    assert "Copyright 2025" not in text
    assert "City" not in text.split("\n")[0]


LISTING = (
    """<html><head><title>Kettles</title></head><body><nav><a href="/">Shop</a></nav>
<main><h1>Kettles</h1><ul class="products">"""
    + "".join(
        f'<li><a href="/p/{i}">Kettle model {i}</a> <span>{20 + i} EUR</span>'
        f"<p>A {1 + i / 10:.1f} litre kettle with a {1800 + 100 * i} watt element.</p></li>"
        for i in range(12)
    )
    + "</ul></main><footer>Imprint</footer></body></html>"
)


def test_a_listing_page_keeps_its_items() -> None:
    text = extract_html(LISTING, "https://shop.example/kettles").markdown
    # The block model may drop an item at the very edges of a short list; not more.
    assert sum(f"Kettle model {i}]" in text for i in range(12)) >= 10
    assert "Imprint" not in text


FORUM = (
    """<html><head><title>Kettle fuse keeps blowing</title></head><body>
<nav><a href="/">Forum</a></nav><main><h1>Kettle fuse keeps blowing</h1>"""
    + "".join(
        f'<div class="post"><div class="user">user{i}</div><p>{body}</p></div>'
        for i, body in enumerate(
            [
                "My kettle blows its fuse every time I switch it on, what could cause that?",
                "Check the element for a short; a cracked element often trips the fuse at once.",
                "Also look at the cord, mine had a frayed wire right where it enters the base.",
                "Thanks, it was the cord: a new one fixed it and the fuse holds now.",
            ]
        )
    )
    + "</main></body></html>"
)


def test_a_forum_thread_keeps_its_posts() -> None:
    text = extract_html(FORUM, "https://forum.example/t/kettle-fuse").markdown
    assert "blows its fuse every time" in text
    assert "cracked element" in text
    assert "frayed wire" in text
    assert "new one fixed it" in text


def test_the_text_starts_with_a_header_of_the_declared_metadata_only() -> None:
    html = story_page(
        '<meta property="og:title" content="Depot becomes library">'
        '<meta name="author" content="Jane Miller">'
    )
    extracted = extract_html(html, "https://news.example/depot")
    assert extracted.text.startswith("Title: Depot becomes library\nAuthor: Jane Miller\n\n")
    assert "Published:" not in extracted.text
    assert extracted.text.endswith(extracted.markdown)
    assert not extracted.markdown.startswith("Title:")


def test_the_title_is_said_once_in_the_header_without_the_site_name() -> None:
    html = story_page(
        '<meta property="og:title" content="Depot becomes library | Town Herald">'
        '<meta property="og:site_name" content="Town Herald">'
    ).replace("<article>", "<article><h1>Depot becomes library</h1>")
    extracted = extract_html(html, "https://herald.example/depot")
    assert extracted.text.startswith(
        f"Title: Depot becomes library\nSite: Town Herald\n\n{STORY[0]}"
    )
    assert extracted.text.count("Depot becomes library") == 1


def test_a_script_built_page_read_without_its_scripts_shows_its_own_description() -> None:
    description = "I want to start making my home smart. Which hub should I buy first?"
    shell = (
        f'<html><head><title>Starting out</title><meta name="description" content="{description}">'
        '</head><body><section id="main"></section><script src="/app.js"></script></body></html>'
    )
    extracted = extract_html(shell, "https://forum.example/t/starting-out")
    assert extracted.markdown == ""
    assert extracted.text.endswith(f"Description: {description}")


def test_a_shell_showing_only_a_line_about_javascript_has_no_body_but_its_description() -> None:
    description = "Clearance dresses, tops and jeans for women, up to 70% off."
    shell = (
        f'<html><head><title>Clearance</title><meta name="description" content="{description}">'
        '</head><body><div id="root"></div>'
        "<noscript>You need to enable JavaScript to run this app.</noscript>"
        '<script src="/app.js"></script></body></html>'
    )
    extracted = extract_html(shell, "https://shop.example/women/clearance")
    assert extracted.markdown == ""
    assert extracted.text.endswith(f"Description: {description}")


def test_a_page_with_content_leaves_its_description_out() -> None:
    html = story_page('<meta name="description" content="A summary of the story.">')
    assert "summary of the story" not in extract_html(html, "https://news.example/depot").text


def test_a_page_without_metadata_has_no_header() -> None:
    extracted = extract_html(story_page(), "https://news.example/depot")
    assert extracted.text == extracted.markdown


def test_code_blocks_lists_and_headings_stay_markdown() -> None:
    html = (
        "<html><body><article><h1>Install</h1>"
        + "<p>Install the tool with the package manager of your system and check it.</p>" * 3
        + "<h2>Steps</h2><ol><li>Download the archive</li><li>Unpack the archive</li></ol>"
        + "<pre><code>tar xf tool.tar.gz\ncd tool</code></pre>"
        + "<p>The tool is now ready to be used from the command line of your machine.</p>"
        + "</article></body></html>"
    )
    text = extract_html(html, "https://docs.example/install").markdown
    assert "# Install" in text
    assert "## Steps" in text
    assert "Download the archive" in text
    assert "tar xf tool.tar.gz" in text


def _news_page(declared: bool) -> str:
    declaration = (
        '<script type="application/ld+json">{"@context": "https://schema.org", '
        '"@type": "NewsArticle", "headline": "Library stays open"}</script>'
        if declared
        else ""
    )
    body = "".join(
        f"<p>Paragraph {i} of the report says how the council argued for two hours about the "
        "library, its costs and the people who use it on Sundays.</p>"
        for i in range(6)
    )
    return f"""<html><head><title>Library stays open</title>{declaration}</head><body>
<nav><a href="/">Home</a> <a href="/news">News</a></nav>
<div class="head"><h1>Library stays open</h1><p class="standfirst">Sunday opening was saved
by a single vote after a long night at the town hall.</p></div>
<article><div class="body">{body}</div></article><footer>Imprint</footer></body></html>"""


def test_a_declared_articles_standfirst_above_its_body_is_read_with_it() -> None:
    tree = parse(_news_page(declared=True))
    assert tree is not None
    article = readings(tree, "https://news.example/library").found.article
    assert article.startswith("Sunday opening was saved")
    assert "Paragraph 5 of the report" in article
    assert "Home" not in article


def test_the_article_reading_of_an_undeclared_page_starts_where_trafilatura_starts_it() -> None:
    tree = parse(_news_page(declared=False))
    assert tree is not None
    article = readings(tree, "https://news.example/library").found.article
    assert "Sunday opening" not in article
    assert article.startswith("Paragraph 0 of the report")
