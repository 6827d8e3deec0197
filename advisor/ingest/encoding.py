"""Bytes -> text for HTML pages, the way a browser would, with a guess when nothing is declared.

Korean university sites still serve many EUC-KR pages, often with a missing or wrong declaration,
so every declared label is checked against the bytes before it is trusted.
"""

from __future__ import annotations

import codecs
import re

from charset_normalizer import from_bytes

from advisor.ingest.errors import DocumentError

# Browsers decode all of these as windows-949 (a superset of EUC-KR with the extra 8,822 Hangul
# syllables); decoding strictly as EUC-KR would fail on exactly those syllables.
_ALIASES = {
    "euc-kr": "cp949",
    "euc_kr": "cp949",
    "euckr": "cp949",
    "ks_c_5601-1987": "cp949",
    "ks_c_5601-1989": "cp949",
    "ksc5601": "cp949",
    "ksc_5601": "cp949",
    "korean": "cp949",
    "csksc56011987": "cp949",
    "iso-ir-149": "cp949",
    "x-windows-949": "cp949",
    "windows-949": "cp949",
    "ms949": "cp949",
    "uhc": "cp949",
    # Same idea for the WHATWG Encoding Standard's other superset mappings.
    "iso-8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "us-ascii": "cp1252",
    "ascii": "cp1252",
    "shift_jis": "cp932",
    "shift-jis": "cp932",
    "sjis": "cp932",
    "x-sjis": "cp932",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
}

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

_HEADER_CHARSET = re.compile(r"""charset\s*=\s*["']?\s*([^\s"';,]+)""", re.I)
_META = re.compile(rb"<meta\b[^>]*>", re.I)
_META_CHARSET = re.compile(rb"""charset\s*=\s*["']?\s*([A-Za-z0-9_:.+-]+)""", re.I)
_PRESCAN_BYTES = 4096

# A charset is still accepted when only this share of the non-ASCII characters fails to decode:
# a stray byte or a cut multi-byte sequence should not throw away a correct declaration, while a
# wrong one garbles most non-ASCII text.
_TOLERATED_ERRORS = 0.05
# The decoded text is rejected when junk (U+FFFD, control characters) makes up this share.
_MAX_JUNK = 0.3
_JUNK = re.compile(r"[\ufffd\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")
_WHITESPACE = re.compile(r"\s")


def codec_for(label: str | None) -> str | None:
    """The Python codec for a charset label, or None for an unknown label."""
    if not label:
        return None
    label = label.strip().strip("\"'").lower()
    label = _ALIASES.get(label, label)
    try:
        name = codecs.lookup(label).name
    except LookupError:
        return None
    # An HTML page declared as UTF-16 without a BOM is really ASCII-compatible (browsers do this).
    return "utf-8" if name.startswith(("utf-16", "utf-32")) else name


def _bom(body: bytes) -> tuple[str, int] | None:
    for bom, name in _BOMS:
        if body.startswith(bom):
            return name, len(bom)
    return None


def _header_label(content_type: str | None) -> str | None:
    match = _HEADER_CHARSET.search(content_type or "")
    return match.group(1) if match else None


def _meta_labels(body: bytes) -> list[str]:
    """Every charset declared by a <meta> tag in the first 4 KB, in order."""
    labels = []
    for tag in _META.finditer(body[:_PRESCAN_BYTES]):
        match = _META_CHARSET.search(tag.group(0))
        if match:
            labels.append(match.group(1).decode("ascii", "ignore"))
    return labels


def _decode_mostly(body: bytes, codec: str) -> str | None:
    """Decode with `codec`, or None when the bytes show it is the wrong one."""
    try:
        return body.decode(codec)
    except UnicodeDecodeError:
        pass
    text = body.decode(codec, errors="replace")
    non_ascii = sum(1 for ch in text if ord(ch) > 127)
    return text if text.count("\ufffd") <= non_ascii * _TOLERATED_ERRORS else None


def _guess(body: bytes) -> str | None:
    best = from_bytes(body).best()
    return codec_for(best.encoding) if best is not None else None


def _check(text: str, codec: str) -> tuple[str, str]:
    junk = len(_JUNK.findall(text))
    if junk and junk > (len(text) - len(_WHITESPACE.findall(text))) * _MAX_JUNK:
        raise DocumentError("undecodable", f"mostly undecodable bytes (tried {codec})")
    return text, codec


def decode_html(body: bytes, content_type: str | None) -> tuple[str, str]:
    """Decode an HTML body; returns (text, Python codec name used).

    Order: BOM; charset in the Content-Type header; <meta> charset in the first 4 KB; UTF-8;
    charset-normalizer's guess; cp949 with replacement characters. Unknown labels, and charsets
    the bytes do not decode under (beyond a stray bad byte or two), fall through to the next step.
    """
    bom = _bom(body)
    if bom:
        name, size = bom
        return _check(body[size:].decode(name, errors="replace"), name)

    for label in [_header_label(content_type), *_meta_labels(body)]:
        codec = codec_for(label)
        if codec:
            text = _decode_mostly(body, codec)
            if text is not None:
                return _check(text, codec)

    # Valid UTF-8 with any non-ASCII text in it is very unlikely to be anything else.
    text = _decode_mostly(body, "utf-8")
    if text is not None:
        return _check(text, "utf-8")

    codec = _guess(body)
    if codec:
        try:
            return _check(body.decode(codec), codec)
        except (UnicodeDecodeError, LookupError):
            pass
    return _check(body.decode("cp949", errors="replace"), "cp949")
