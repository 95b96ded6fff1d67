"""Decoded forms of a URL map every decoded character back to what is really sent."""

from __future__ import annotations

import base64

from spyglass.privacy.views import (
    MAX_VIEWS,
    View,
    decodes_to_text,
    embedded,
    normalised,
    percent_decoded,
    text_views,
    url_views,
)

EMAIL = "jane.doe@example.com"


def decoded_spans(url: str, hidden: str) -> set[str]:
    """The parts of ``url`` behind each decoded form of it that holds ``hidden``."""
    found = set()
    for view in url_views(url):
        if hidden in view.text and view.text != url:
            at = view.text.index(hidden)
            start, end = view.span(at, at + len(hidden))
            found.add(url[start:end])
    return found


def test_percent_and_plus_decoding_maps_back_to_the_encoded_characters() -> None:
    url = "https://a.example/p?q=jane%40example.com+x"
    decoded = url_views(url)[1]
    at = decoded.text.index("jane@example.com")
    start, end = decoded.span(at, at + len("jane@example.com"))
    assert url[start:end] == "jane%40example.com"
    assert decoded.text.endswith("jane@example.com x")


def test_a_plus_in_the_path_stays_a_plus() -> None:
    decoded = url_views("https://a.example/c++/x?y=a+b")[1]
    assert decoded.text == "https://a.example/c++/x?y=a b"


def test_double_encoding_is_read_too() -> None:
    texts = [view.text for view in url_views("https://a.example/?e=jane%2540example.com")]
    assert any("jane@example.com" in text for text in texts)


def test_the_fragment_is_never_read_because_it_is_never_sent() -> None:
    assert all("secret" not in v.text for v in url_views("https://a.example/#secret"))


def test_base64_and_hex_runs_that_hold_text_are_decoded_and_map_back_to_what_encodes_them() -> None:
    hidden = "meet me at the usual place"
    b64 = base64.urlsafe_b64encode(hidden.encode()).decode().rstrip("=")
    url = f"https://a.example/?d={b64}&h={hidden.encode().hex()}"
    spans = set()
    for view in url_views(url):
        if hidden in view.text and view.text != url:
            at = view.text.index(hidden)
            start, end = view.span(at, at + len(hidden))
            spans.add(url[start:end])
    assert spans == {b64, hidden.encode().hex()}


def test_random_bytes_and_short_runs_are_not_treated_as_text() -> None:
    assert embedded(View.of("0e322af87745eff34caffe4df68456ebc20d9068")) == []
    assert embedded(View.of("abcd")) == []
    assert len(text_views("plain words only")) == 1


def test_multi_byte_characters_map_to_their_whole_percent_run() -> None:
    decoded = percent_decoded(View.of("x%C3%A9y"), plus_as_space=False)
    assert decoded.text == "xéy"
    assert decoded.span(1, 2) == (1, 7)


def test_full_width_letters_and_digits_of_other_scripts_read_as_plain_ones() -> None:
    text = "ｊａｎｅ＠ｅｘａｍｐｌｅ．ｃｏｍ ٤١١١ ۴۱۱۱ ４１１１"
    view = normalised(View.of(text))
    assert view.text == "jane@example.com 4111 4111 4111"
    assert text[slice(*view.span(0, 16))] == "ｊａｎｅ＠ｅｘａｍｐｌｅ．ｃｏｍ"


def test_invisible_characters_are_left_out_and_the_rest_maps_back_across_them() -> None:
    text = "ja\u200bne\u2060@exa\u00admple.com\u202e \ufe0f"
    view = normalised(View.of(text))
    assert view.text == "jane@example.com "
    assert view.span(0, 16) == (0, text.index(".com") + 4)


def test_plain_text_is_not_copied_to_be_normalised() -> None:
    view = View.of("café crème, 12 €")
    assert normalised(view) is view


def test_a_url_is_read_after_percent_decoding_and_normalising() -> None:
    url = "https://a.example/?q=jane%EF%BC%A0example.com"
    assert decoded_spans(url, EMAIL.replace("jane.doe", "jane")) == {"jane%EF%BC%A0example.com"}


def test_base64_in_a_path_is_read_although_its_run_crosses_slashes() -> None:
    hidden = "my pin is 4242, do not tell ??>"
    b64 = base64.b64encode(hidden.encode()).decode()
    assert "/" in b64
    url = f"https://a.example/files/{b64}/view"
    assert decoded_spans(url, hidden) == {b64.rstrip("=")}


def test_base64_split_over_path_segments_is_read_whole() -> None:
    b64 = base64.urlsafe_b64encode(EMAIL.encode()).decode().rstrip("=")
    url = f"https://a.example/x/{b64[:5]}/{b64[5:13]}/{b64[13:]}/"
    assert decoded_spans(url, EMAIL) == {f"{b64[:5]}/{b64[5:13]}/{b64[13:]}"}


def test_base64_and_hex_shifted_by_junk_characters_are_read_at_every_alignment() -> None:
    b64 = base64.urlsafe_b64encode(EMAIL.encode()).decode().rstrip("=")
    hex_run = EMAIL.encode().hex()
    for junk in ("x", "xy", "xyz"):
        assert decoded_spans(f"https://a.example/p/{junk}{b64}", EMAIL) == {b64}
    for junk in ("a", "b7", "c0f"):
        assert decoded_spans(f"https://a.example/?id={junk}{hex_run}", EMAIL) == {hex_run}


def test_encoded_text_run_on_from_the_words_around_it_is_read_from_its_own_start() -> None:
    # Read as one run, "cafe" and the hex before and after decode to letters next to the
    # address; the address is also read from the start of its own piece of the query.
    hex_run = EMAIL.encode().hex()
    views = text_views(f"cafe bad {hex_run} dead beef")
    assert any(view.text.startswith(EMAIL) for view in views)


def test_each_decoded_character_maps_to_the_characters_that_encode_it() -> None:
    hidden = "hello there, world"
    hex_run = hidden.encode().hex()
    (inner,) = [v for v in embedded(View.of(hex_run)) if v.text == hidden]
    at = hidden.index("there")
    assert hex_run[slice(*inner.span(at, at + 5))] == b"there".hex()


def test_a_whole_token_of_encoded_text_decodes_but_random_bytes_do_not() -> None:
    assert decodes_to_text(base64.b64encode(b"a longer plain sentence").decode())
    assert decodes_to_text(b"a longer plain sentence".hex())
    assert not decodes_to_text("q8Zr4Lm2Xv9Tn6Bw1Kc7Hd3Jf5Gs0PyA")


def test_ordinary_addresses_and_queries_decode_to_nothing_readable() -> None:
    ordinary = [
        "https://github.com/pallets/flask/commit/0e322af87745eff34caffe4df68456ebc20d9068",
        "https://www.example.org/how-much-does-a-home-remodel-cost-in-california",
        "https://docs.python.org/3/library/base64.html#base64.b64decode",
        "https://cdn.example.com/img/550e8400-e29b-41d4-a716-446655440000.png",
        "best hiking boots for wide feet 2026",
    ]
    for text in ordinary:
        views = url_views(text) if text.startswith("http") else text_views(text)
        assert len(views) == 1, [v.text for v in views]


def test_a_long_address_of_encoded_pieces_decodes_to_a_bounded_number_of_forms() -> None:
    text = " ".join(["call +1 202 555 0143 or write to jane@example.com"] * 40)
    b64 = base64.b64encode(text.encode()).decode()
    url = "https://a.example/" + "/".join(b64[i : i + 3] for i in range(0, 2000, 3))
    views = url_views(url)
    assert len(views) <= 3 + MAX_VIEWS
    assert sum(len(view.text) for view in views) < 100 * len(url)


def test_encoded_or_written_invisible_characters_alone_decode_to_no_empty_form() -> None:
    b64 = base64.b64encode(("\u200b" * 10).encode()).decode()
    for views in (url_views(f"https://a.example/?d={b64}"), text_views("\u200b\u2060\ufeff")):
        assert all(view.text for view in views[1:])
    assert View("", ()).span(0, 0) == (0, 0)
