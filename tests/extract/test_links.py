from spyglass.extract.links import LINK, is_link, link_label_chars, link_text, without_targets


def test_links_and_images_are_read_as_their_labels() -> None:
    markdown = "See [the tides](https://example.org/t) and ![a chart](c.png) today."
    assert link_text(markdown) == "See the tides and a chart today."


def test_text_without_links_comes_back_as_it_is() -> None:
    markdown = "Brackets [alone] and (parentheses) are not links."
    assert link_text(markdown) is markdown


def test_a_link_does_not_reach_across_lines() -> None:
    assert link_text("[half\nlabel](x)") == "[half\nlabel](x)"


def test_links_finds_links_and_images_and_not_brackets_that_open_none() -> None:
    markdown = "[a](x) [b] [c](<d e>) ![f](g.png) [[h]](i) [j](k(l)m)"
    found = [(m.group(1), m.group(2) or m.group(3)) for m in LINK.finditer(markdown) if is_link(m)]
    assert found == [("[a]", "x"), ("[c]", "d e"), ("![f]", "g.png"), ("[j]", "k(l)m")]


def test_a_bracket_that_opens_no_link_is_read_once_with_the_text_its_attempt_read() -> None:
    # One match for the whole stretch, not an attempt from every bracket in it: the latter
    # reads the rest of the line again from each and grows with the square of its length.
    assert [m.span() for m in LINK.finditer("[[[[[ no close")] == [(0, 14)]
    assert [m.span() for m in LINK.finditer("[[[a] then")] == [(0, 5)]


def test_text_without_targets_keeps_labels_in_brackets_and_everything_else() -> None:
    markdown = "[a](x) and [b] and [[c\n![d](e)"
    assert without_targets(markdown) == "[a] and [b] and [[c\n![d]"


def test_link_label_chars_counts_only_the_labels_of_links() -> None:
    assert link_label_chars("[ab](x) [cd] ![e](f)") == len("[ab]") + len("![e]")
    assert link_label_chars("no links [here]") == 0


def test_a_target_with_no_closing_parenthesis_ends_every_link_after_it_on_its_line() -> None:
    line = "[a](b " + "[c](d " * 3
    assert link_text(line) == line
    assert link_text(line + "\n[e](f)") == line + "\ne"
