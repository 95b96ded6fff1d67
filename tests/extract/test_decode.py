"""Charset: BOM, then header, then meta, then UTF-8, then detection."""

from __future__ import annotations

from spyglass.extract.decode import declared_in_document, decode, known

GREEK = "Η γρήγορη καφέ αλεπού πηδάει πάνω από το τεμπέλικο σκυλί. " * 20


def test_a_bom_wins_over_everything() -> None:
    body = "\ufeffhéllo".encode("utf-8")
    assert decode(body, "windows-1252", markup=True) == "héllo"


def test_latin_1_labels_are_read_as_windows_1252_like_browsers_do() -> None:
    assert known("ISO-8859-1") == "cp1252"
    assert decode("“quoted”".encode("cp1252"), "iso-8859-1", markup=False) == "“quoted”"


def test_an_unknown_declared_charset_falls_through_to_detection() -> None:
    body = GREEK.encode("utf-8")
    assert decode(body, "x-no-such-charset", markup=False) == GREEK


def test_a_python_codec_that_is_no_web_charset_is_unknown_not_fatal() -> None:
    # Python names these codecs; a browser knows none of them: the page reads as undeclared.
    body = "café au lait".encode()
    for label in ("rot13", "hex", "base64", "zlib", "undefined", "idna", "punycode"):
        assert known(label) is None
        assert decode(body, label, markup=False) == "café au lait"
        declared = f'<meta charset="{label}"><p>café</p>'.encode()
        assert decode(declared, None, markup=True) == '<meta charset="' + label + '"><p>café</p>'


def test_a_charset_that_would_rewrite_the_text_is_not_applied() -> None:
    # As UTF-7 these bytes are "<script>"; as unicode_escape a backslash sequence is a
    # character. Neither is a charset of the web, so the bytes read as written.
    assert decode(b"+ADw-script+AD4-", "utf-7", markup=False) == "+ADw-script+AD4-"
    assert decode(b"a\\u0041", "unicode_escape", markup=False) == "a\\u0041"
    assert decode(b"plain", "x-user-defined", markup=False) == "plain"


def test_web_labels_name_the_codecs_browsers_read_them_with() -> None:
    assert known("latin1") == "cp1252"
    assert known("shift_jis") == "cp932"
    assert known(" UTF8 ") == "utf-8"
    assert known('"gb2312"') == "gbk"


def test_meta_and_xml_declarations_are_found_in_the_head() -> None:
    assert (
        declared_in_document(
            b'<html><meta http-equiv="Content-Type" content="text/html; charset=windows-1253">'
        )
        == "cp1253"
    )
    assert declared_in_document(b'<?xml version="1.0" encoding="ISO-8859-7"?><html>') == "iso8859-7"
    assert declared_in_document(b"<html><body>no declaration</body>") is None


def test_undeclared_greek_in_windows_1253_is_detected() -> None:
    body = f"<p>{GREEK}</p>".encode("windows-1253")
    assert GREEK in decode(body, None, markup=True)


def test_utf8_bytes_under_a_stale_latin_1_meta_tag_read_as_utf8_not_mojibake() -> None:
    text = "Our agency’s 5-star service – café included"
    body = (
        '<html><head><meta http-equiv="content-type" content="text/html; charset=iso-8859-1">'
        f"</head><body><p>{text}</p></body></html>"
    ).encode()
    decoded = decode(body, None, markup=True)
    assert text in decoded
    assert "â€" not in decoded


def test_a_servers_default_western_charset_on_utf8_bytes_reads_as_utf8() -> None:
    assert decode("naïve café – ok".encode(), "windows-1252", markup=False) == "naïve café – ok"


def test_genuine_windows_1252_bytes_keep_their_label() -> None:
    text = "Crème brûlée – “quoted”"
    assert decode(text.encode("cp1252"), "windows-1252", markup=False) == text
