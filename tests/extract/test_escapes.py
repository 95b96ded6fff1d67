from spyglass.extract.escapes import unescape_prose


def test_characters_inside_words_lose_their_backslashes() -> None:
    assert unescape_prose(r"Investor\*innen und Liebe\_r Besucher\_in") == (
        "Investor*innen und Liebe_r Besucher_in"
    )


def test_brackets_angles_and_tildes_in_prose_lose_their_backslashes() -> None:
    assert unescape_prose(r"\[1\] Wer \<b> ca. \~5 Tage") == "[1] Wer <b> ca. ~5 Tage"


def test_a_backslash_of_the_page_before_an_escaped_character_stays_one_backslash() -> None:
    # trafilatura doubles the page's own backslashes in front of a character it escapes.
    assert unescape_prose(r"C:\\\_temp") == r"C:\_temp"


def test_backslashes_before_other_characters_are_the_pages_own() -> None:
    assert unescape_prose(r"C:\Users\name and a\\b") == r"C:\Users\name and a\\b"


def test_code_spans_and_fenced_blocks_are_left_as_they_are() -> None:
    markdown = "see `a\\_b` here\n```\nx = a\\_b\n```\nthen a\\_b"
    assert unescape_prose(markdown) == "see `a\\_b` here\n```\nx = a\\_b\n```\nthen a_b"


def test_a_links_label_keeps_its_escaped_brackets_and_loses_the_others() -> None:
    markdown = r"read [Smith \[2020\] on snake\_case](https://example.org/a_b) now"
    assert unescape_prose(markdown) == (
        r"read [Smith \[2020\] on snake_case](https://example.org/a_b) now"
    )


def test_an_escape_that_keeps_a_line_from_becoming_a_list_item_or_rule_stays() -> None:
    markdown = "\\* not an item\n  \\*\\*\\*\n\\~\\~\\~\n\\*emphasis\\* in a line"
    assert unescape_prose(markdown) == "\\* not an item\n  \\***\n\\~~~\n*emphasis* in a line"


def test_markdown_without_backslashes_is_returned_unchanged() -> None:
    markdown = "# Title\n\n- item with a_b\n\n| a | b |"
    assert unescape_prose(markdown) is markdown


def test_underline_tags_go_in_prose_and_labels_and_stay_in_code_and_the_pages_text() -> None:
    markdown = (
        "says [<u>Beth</u>](https://example.org/b) that **<u>it works</u>**, 12<sup>th</sup>\n"
        "the tag \\<u> and `<u>x</u>`\n```\n<u>fenced</u>\n```"
    )
    assert unescape_prose(markdown) == (
        "says [Beth](https://example.org/b) that **it works**, 12<sup>th</sup>\n"
        "the tag <u> and `<u>x</u>`\n```\n<u>fenced</u>\n```"
    )


def test_a_run_of_backticks_that_no_run_of_its_length_closes_is_prose() -> None:
    # CommonMark: "``a`" holds no code span, so its escapes are trafilatura's.
    assert unescape_prose("``a\\_b` and c\\_d") == "``a_b` and c_d"
    assert unescape_prose("``a\\_b` and ``c\\_d``") == "``a\\_b` and ``c_d``"


def test_an_unescaped_bracket_ends_what_could_be_a_links_label() -> None:
    # CommonMark reads "[a [b](c)" as a bracket and a link: the label is "b" alone, and
    # the escaped bracket before it is prose.
    assert unescape_prose(r"[a \[x [b\[1\]](c)") == r"[a [x [b\[1\]](c)"
