"""Page metadata: declared fields only, as a short header."""

from __future__ import annotations

from lxml import html as lxml_html

from spyglass.extract.metadata import Metadata, own_url, page_metadata, without_title

DECLARED = """<html><head><title>Ignored title tag</title>
<meta property="og:title" content="Kettles compared">
<meta property="og:site_name" content="Kitchen Weekly">
<script type="application/ld+json">{"@context": "https://schema.org", "@type": "NewsArticle",
 "headline": "Kettles compared", "author": {"@type": "Person", "name": "Ada Baker"},
 "datePublished": "2024-05-02T08:00:00Z"}</script>
</head><body><article><p>Text.</p></article></body></html>"""


def _read(html: str, url: str) -> Metadata:
    return page_metadata(lxml_html.document_fromstring(html), url)


def test_declared_title_author_date_and_site_are_read() -> None:
    found = _read(DECLARED, "https://news.example/k")
    assert found.title == "Kettles compared"
    assert found.author == "Ada Baker"
    assert found.published == "2024-05-02"
    assert found.site == "Kitchen Weekly"


def test_json_ld_nested_deeper_than_python_reads_leaves_the_page_without_metadata() -> None:
    nested = "[" * 100_000 + "]" * 100_000
    html = DECLARED.replace(
        "</head>", f'<script type="application/ld+json">{nested}</script></head>'
    )
    assert _read(html, "https://news.example/k") == Metadata()


def test_the_header_names_only_the_fields_present() -> None:
    assert Metadata(title="T", published="2024-01-01").header() == "Title: T\nPublished: 2024-01-01"
    assert Metadata().header() == ""


def test_a_page_declaring_nothing_has_no_author_or_date() -> None:
    html = "<html><body><p>Just some words on a page.</p></body></html>"
    found = _read(html, "https://plain.example/")
    assert found.author is None
    assert found.published is None


def test_a_date_only_mentioned_in_the_text_is_not_taken_as_the_publication_date() -> None:
    html = (
        "<html><body><article><p>The depot closed on 12 March 2019 and reopened on "
        "2021-06-01 as a library.</p></article></body></html>"
    )
    found = _read(html, "https://plain.example/depot")
    assert found.published is None


def test_a_date_declared_by_a_time_element_is_read() -> None:
    html = (
        '<html><body><article><time datetime="2023-11-05T10:00:00" class="entry-date '
        'published">5 November</time><p>Text of the story.</p></article></body></html>'
    )
    found = _read(html, "https://plain.example/depot")
    assert found.published == "2023-11-05"


def test_the_description_joins_the_header_only_when_asked_for() -> None:
    found = Metadata(title="T", description="What the page is about.")
    assert found.header() == "Title: T"
    assert found.header(described=True) == "Title: T\nDescription: What the page is about."


def test_a_declared_description_is_read_and_a_long_one_cut() -> None:
    words = "Howdy everyone, I am new to astronomy and would like advice on a telescope. " * 20
    html = f'<html><head><meta name="description" content="{words}"></head><body></body></html>'
    found = _read(html, "https://forum.example/t/1")
    assert found.description is not None
    assert found.description.startswith("Howdy everyone, I am new to astronomy")
    assert len(found.description) <= 600 and found.description.endswith("…")


def metadata_of(head: str, url: str = "https://news.example/k") -> Metadata:
    html = f"<html><head>{head}</head><body><p>Text.</p></body></html>"
    return page_metadata(lxml_html.document_fromstring(html), url)


def declaring(title: str, site: str | None, url: str) -> Metadata:
    """The metadata of a page declaring ``title`` and ``site`` in OpenGraph tags."""
    head = f'<meta property="og:title" content="{title}">'
    if site is not None:
        head += f'<meta property="og:site_name" content="{site}">'
    return metadata_of(head, url)


def title_of(title: str, site: str | None = None, url: str = "https://news.example/k") -> str:
    """The header's title of a page declaring ``title`` and ``site`` in OpenGraph tags."""
    found = declaring(title, site, url).title
    assert found is not None
    return found


def test_a_title_closed_by_the_site_name_leaves_the_name_to_the_site_line() -> None:
    found = metadata_of(
        '<meta property="og:title" content="Kettles compared | Kitchen Weekly">'
        '<meta property="og:site_name" content="Kitchen Weekly">'
    )
    assert found.title == "Kettles compared"
    assert found.site == "Kitchen Weekly"
    assert found.header() == "Title: Kettles compared\nSite: Kitchen Weekly"


def test_a_title_part_naming_the_host_is_dropped_when_no_site_name_is_declared() -> None:
    truffles = title_of("Peanut Butter Truffles - Elavegan", url="https://elavegan.com/t/")
    assert truffles == "Peanut Butter Truffles"
    tax = title_of("Best Tax Software | Accounting.com", url="https://www.accounting.com/tax/")
    assert tax == "Best Tax Software"


def test_a_copy_served_from_elsewhere_is_judged_by_the_address_it_declares() -> None:
    found = metadata_of(
        '<link rel="canonical" href="https://elavegan.com/truffles/">'
        '<meta property="og:title" content="Peanut Butter Truffles - Elavegan">',
        "http://mirror.example/copy/1",
    )
    assert found.title == "Peanut Butter Truffles"


def test_a_title_opened_by_the_site_name_loses_it() -> None:
    assert title_of("Kitchen Weekly » Kettles compared", "Kitchen Weekly") == "Kettles compared"


def test_title_parts_that_name_something_else_stay() -> None:
    german = "Minions mit Schablonen malen - mit Malerrolle & bunter Farbe"
    assert title_of(german, "Papaganda", "https://www.papaganda.de/minions") == german
    # A part with the site's name among other words stays where it opens the title.
    local = "Local news roundup | Weather"
    assert title_of(local, "News") == local


def test_a_part_closing_the_title_that_holds_the_site_name_goes_with_it() -> None:
    assert title_of("Economy | Today&#39;s latest from Al Jazeera", "Al Jazeera") == "Economy"


def test_a_site_name_that_is_the_whole_title_does_not_cut_the_title() -> None:
    title = "Shop Furniture Online - Modern Options | Homes"
    assert title_of(title, title, "https://shop.example/furniture") == title


def test_a_site_named_by_its_handle_loses_the_at_sign() -> None:
    found = metadata_of('<meta name="twitter:site" content="@kitchenweekly">')
    assert found.site == "kitchenweekly"


def test_a_body_opening_with_the_title_as_its_heading_does_not_repeat_it() -> None:
    body = "# Kettles compared\n\n \n\nWe boiled a litre in each."
    assert without_title(body, "Kettles compared") == "We boiled a litre in each."
    # Punctuation, case and a link around the heading's words do not matter.
    linked = "## [Kettles, compared!](https://news.example/k)\n\nWe boiled a litre."
    assert without_title(linked, "kettles compared") == "We boiled a litre."


def test_the_title_heading_after_a_category_line_is_not_repeated_either() -> None:
    body = "Reviews\n\n# Kettles compared\n\nWe boiled a litre in each."
    assert without_title(body, "Kettles compared") == "Reviews\n\nWe boiled a litre in each."
    # Further down, a heading that says the title again is the body's own.
    later = "Reviews\n\nIn short.\n\n# Kettles compared\n\nWe boiled a litre."
    assert without_title(later, "Kettles compared") == later


def test_a_body_keeps_a_heading_that_is_not_the_title() -> None:
    body = "# Kettles compared for 2025\n\nWe boiled a litre in each."
    assert without_title(body, "Kettles compared") == body
    assert without_title(body, None) == body


def test_a_body_that_is_only_the_title_heading_is_left_empty() -> None:
    assert without_title("# Kettles compared\n\n", "Kettles compared") == ""


def site_of(
    site: str, title: str = "Kettles compared", url: str = "https://news.example/k"
) -> str | None:
    """The header's site of a page declaring ``title`` and ``site`` in OpenGraph tags."""
    return declaring(title, site, url).site


def test_a_site_name_with_its_slogan_keeps_the_part_that_names_the_host() -> None:
    slogan = "KFF - The independent source for health policy research, polling, and news"
    assert site_of(slogan, url="https://www.kff.org/health-costs/") == "KFF"
    # Hyphens and dots in the host are not letters of the name.
    assert site_of("Head-Fi Reviews | Head-Fi.org", url="https://www.head-fi.org/t/1") == (
        "Head-Fi.org"
    )
    # A part that opens with the domain's name names it too.
    assert (
        site_of("Stacy Blackman Consulting - MBA Admissions", url="https://stacyblackman.com/b")
        == "Stacy Blackman Consulting"
    )


def test_a_subdomain_like_forum_or_blog_names_no_site_the_domain_does() -> None:
    found = site_of("MS Society UK | Forum", url="https://forum.mssociety.org.uk/t/1")
    assert found == "MS Society UK"
    found = site_of("Admissions | Blog", url="https://blog.college.example.edu/a")
    assert found == "Admissions | Blog"


def test_a_site_name_holding_the_page_title_keeps_only_the_rest() -> None:
    title = "Do you need 14 USB ports on your Raspberry Pi 5?"
    assert site_of(f"{title} - CNX Software", title, "https://example.org/p") == "CNX Software"


def test_a_site_name_that_is_only_the_page_title_is_left_out() -> None:
    title = "39 Best Electrician Tools for Your Tool Belt"
    found = declaring(title, title, "https://tools.example/best")
    assert found.site is None
    assert found.header() == f"Title: {title}"


def test_a_site_name_without_a_slogan_or_a_title_stays_whole() -> None:
    assert site_of("Kitchen Weekly") == "Kitchen Weekly"
    assert site_of("Tech Blog | Mobile Apps and Insights") == "Tech Blog | Mobile Apps and Insights"


def test_markup_escaped_twice_in_a_field_is_read_as_text() -> None:
    assert site_of("Monkey Wrench Plumbing, Heating, Air &amp;amp; Electrical") == (
        "Monkey Wrench Plumbing, Heating, Air & Electrical"
    )
    assert title_of("Harper&amp;#039;s letter") == "Harper's letter"


def test_a_site_name_read_from_a_copyright_notice_keeps_only_the_holder() -> None:
    assert site_of("© 2000-2026 Newegg Inc.") == "Newegg Inc"
    assert site_of("Copyright 2026 taxslayerpro - all rights reserved.") == "taxslayerpro"
    assert site_of("Copyright UC Regents. For more information, visit our terms.") == ("UC Regents")
    # A notice naming no one names no site; a year that is part of a name stays.
    assert site_of("Copyright © 2001-2009") is None
    assert site_of("Columbia Star, weekly since 1963") == "Columbia Star, weekly since 1963"


def test_the_author_a_page_links_to_is_named_where_no_tag_names_one() -> None:
    html = (
        '<html><body><article><p>By <a rel="author" href="/people/ada">Ada Baker</a></p>'
        "<p>Words of the story.</p></article></body></html>"
    )
    found = _read(html, "https://plain.example/k")
    assert found.author == "Ada Baker"


def test_a_declared_author_wins_over_the_linked_one() -> None:
    html = DECLARED.replace(
        "<p>Text.</p>", '<p><a rel="author" href="/people/ben">Ben Cole</a></p><p>Text.</p>'
    )
    found = _read(html, "https://news.example/k")
    assert found.author == "Ada Baker"


def test_a_link_to_an_author_that_holds_no_name_names_no_one() -> None:
    html = (
        '<html><body><a rel="nofollow author" href="/people/ada">https://blog.example/ada</a>'
        '<a rel="author" href="/people/ben">Ben Cole</a><p>Words.</p></body></html>'
    )
    found = _read(html, "https://plain.example/k")
    assert found.author is None


def test_a_linked_author_is_named_without_the_words_before_the_name() -> None:
    for text in ("By Ada Baker", "von Ada Baker", "View all posts by Ada Baker"):
        html = f'<html><body><a rel="author" href="/ada">{text}</a><p>Words.</p></body></html>'
        found = _read(html, "https://plain.example/k")
        assert found.author == "Ada Baker"


def test_a_blog_platforms_stand_in_for_a_missing_name_names_no_one() -> None:
    html = '<html><body><a rel="author" href="/u/1">Unknown</a><p>Words.</p></body></html>'
    found = _read(html, "https://plain.example/k")
    assert found.author is None


def test_the_declared_address_is_the_first_canonical_link_that_reads_as_one() -> None:
    page = (
        '<html><head><link rel="canonical" href="{head}"></head><body>'
        '<link rel="canonical" href="https://shop.example/b"><p>Words.</p></body></html>'
    )
    read = "http://mirror.example/0042.html"
    first = lxml_html.document_fromstring(page.format(head="https://shop.example/a"))
    assert own_url(first, read) == "https://shop.example/a"
    unreadable = lxml_html.document_fromstring(page.format(head="javascript:void(0)"))
    assert own_url(unreadable, read) == "https://shop.example/b"
    nothing = lxml_html.document_fromstring("<html><body><p>Words.</p></body></html>")
    assert own_url(nothing, read) == read
