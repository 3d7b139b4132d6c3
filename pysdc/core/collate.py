"""The order R gives factor levels made from text (``as.factor``, ``factor``): its collation.

R sorts the distinct values of a character vector with the session's collation
(``LC_COLLATE``). Two orders matter for sdcMicro's users:

* ``"C"``: R with ``LC_COLLATE`` ``C`` or ``POSIX`` compares the UTF-8 bytes (``strcmp``), which
  is Unicode code point order -- Python's own string order (``"B" < "a"``, ``"Z" < "_"``).
* ``"icu"``: R in any other locale, built with ICU (``capabilities("ICU")``; Debian's and CRAN's
  builds for Linux and macOS are; ``C.UTF-8`` counts as "any other" here), compares with ICU's
  collator for the locale: the Unicode Collation Algorithm with CLDR's root order (English adds
  nothing to it). Letters compare first without case and accents, then by accents, then by case
  (lower case first); punctuation and symbols come before digits, digits before letters:
  ``" a" < "_x" < "10" < "9" < "a" < "A" < "b" < "e" < "é" < "Z"``.

:func:`r_sort_text` reproduces ``"icu"`` for text made of ASCII characters, Latin letters with
combining accents (anything Unicode's canonical decomposition turns into an ASCII letter plus
marks U+0300-U+036F), and ß, æ, œ, ø, ł, đ, ð, þ (and their capitals) -- every ordering rule
checked against R 4.2.2 with ICU 72 (``tests/problem/test_createsdcobj_semantics.py`` compares random
texts with R's ``sort`` wherever R runs). Other characters (other scripts, symbols beyond ASCII)
are placed after the characters it knows, in code point order, and reported as unverified so the
caller can warn.
"""

from __future__ import annotations

import unicodedata

__all__ = ["COLLATIONS", "r_sort_text", "icu_sort_key"]

#: the collations pysdc reproduces (see the module docstring)
COLLATIONS = ("icu", "C")

# ASCII characters other than letters and digits, in the order R (ICU root collation, non-ignorable)
# sorts them; observed with R 4.2.2 / ICU 72: sort(c(" ", "_", "-", ...)).
_ASCII_PUNCT_ORDER = [32, 95, 45, 44, 59, 58, 33, 63, 46, 39, 34, 40, 41, 91, 93, 123, 125, 64, 42, 47, 92, 38, 35,
                      37, 96, 94, 43, 60, 61, 62, 124, 126, 36]
# combining marks U+0300-U+036F in the order R sorts "e" followed by each (their secondary weights)
_MARK_ORDER = [
    0x34F, 0x332, 0x313, 0x343, 0x314, 0x301, 0x341, 0x300, 0x340, 0x306, 0x302, 0x30C, 0x30A, 0x342, 0x308, 0x344,
    0x30B, 0x303, 0x307, 0x338, 0x327, 0x328, 0x304, 0x30D, 0x30E, 0x312, 0x315, 0x31A, 0x33D, 0x33E, 0x33F, 0x346,
    0x34A, 0x34B, 0x34C, 0x350, 0x351, 0x352, 0x357, 0x35B, 0x35D, 0x35E, 0x316, 0x317, 0x318, 0x319, 0x31C, 0x31D,
    0x31E, 0x31F, 0x320, 0x329, 0x32A, 0x32B, 0x32C, 0x32F, 0x333, 0x33A, 0x33B, 0x33C, 0x347, 0x348, 0x349, 0x34D,
    0x34E, 0x353, 0x354, 0x355, 0x356, 0x359, 0x35A, 0x35C, 0x35F, 0x362, 0x336, 0x337, 0x335, 0x305, 0x309, 0x30F,
    0x310, 0x311, 0x31B, 0x321, 0x322, 0x323, 0x324, 0x325, 0x326, 0x32D, 0x32E, 0x330, 0x331, 0x334, 0x339, 0x345,
    0x358, 0x360, 0x361, 0x363, 0x368, 0x369, 0x364, 0x36A, 0x365, 0x36B, 0x366, 0x36C, 0x36D, 0x367, 0x36E, 0x36F,
]

# weights: primary (0 = ignorable at that level), secondary, tertiary
_BASE_SEC = 0x20
_LOWER, _VARIANT, _UPPER, _VARIANT_UPPER = 2, 4, 8, 10
_SEC = {m: 0x21 + i for i, m in enumerate(_MARK_ORDER)}  # all below 0x110
_SEC_HIGH = 0x110
_P_PUNCT = {c: 1 + i for i, c in enumerate(_ASCII_PUNCT_ORDER)}
_P_DIGIT0 = 100
_P_LETTER0 = 200  # a = 200, ..., z = 225
_P_THORN = _P_LETTER0 + 26
_P_UNKNOWN0 = 1_000_000  # + code point: after everything known


def _letter(c: str) -> int:
    return _P_LETTER0 + ord(c) - ord("a")


# letters without a canonical decomposition: their collation elements (primary, secondary, tertiary)
def _special() -> dict:
    sp = {}
    for low, up, base, sec in (("ø", "Ø", "o", _SEC[0x338]), ("ł", "Ł", "l", _SEC[0x335]),
                               ("đ", "Đ", "d", _SEC[0x335]), ("ð", "Ð", "d", _SEC_HIGH)):
        sp[low] = [(_letter(base), _BASE_SEC, _LOWER), (0, sec, _LOWER)]
        sp[up] = [(_letter(base), _BASE_SEC, _UPPER), (0, sec, _LOWER)]
    for low, up, a, b in (("æ", "Æ", "a", "e"), ("œ", "Œ", "o", "e")):
        sp[low] = [(_letter(a), _BASE_SEC, _VARIANT), (0, _SEC_HIGH, _VARIANT), (_letter(b), _BASE_SEC, _VARIANT)]
        sp[up] = [(_letter(a), _BASE_SEC, _VARIANT_UPPER), (0, _SEC_HIGH, _VARIANT),
                  (_letter(b), _BASE_SEC, _VARIANT_UPPER)]
    sp["ß"] = [(_letter("s"), _BASE_SEC, _VARIANT), (0, _SEC_HIGH + 1, _VARIANT), (_letter("s"), _BASE_SEC, _VARIANT)]
    sp["þ"] = [(_P_THORN, _BASE_SEC, _LOWER)]
    sp["Þ"] = [(_P_THORN, _BASE_SEC, _UPPER)]
    return sp


_SPECIAL = _special()


def _elements(text: str) -> tuple[list, bool]:
    """The collation elements of ``text`` and whether every character is one pysdc knows."""
    out, known = [], True
    for ch in unicodedata.normalize("NFD", text):
        o = ord(ch)
        if ch in _SPECIAL:
            out.extend(_SPECIAL[ch])
        elif "a" <= ch <= "z":
            out.append((_letter(ch), _BASE_SEC, _LOWER))
        elif "A" <= ch <= "Z":
            out.append((_letter(ch.lower()), _BASE_SEC, _UPPER))
        elif "0" <= ch <= "9":
            out.append((_P_DIGIT0 + o - 48, _BASE_SEC, _LOWER))
        elif o in _P_PUNCT:
            out.append((_P_PUNCT[o], _BASE_SEC, _LOWER))
        elif o in _SEC:
            out.append((0, _SEC[o], _LOWER))
        else:
            known = False
            out.append((_P_UNKNOWN0 + o, _BASE_SEC, _LOWER))
    return out, known


def icu_sort_key(text: str) -> tuple:
    """A sort key that orders texts as R does with ICU's root collation (see the module docstring):
    primary weights, then secondary, then tertiary, then the code points (R keeps distinct texts
    that ICU finds equal in a stable order; pysdc breaks such ties by code point)."""
    el, _ = _elements(text)
    return (tuple(p for p, _, _ in el if p), tuple(s for _, s, _ in el if s), tuple(t for _, _, t in el if t), text)


def r_sort_text(values, collation: str = "icu") -> tuple[list, list]:
    """``sort(values)`` as R sorts character values under ``collation`` (``"icu"`` or ``"C"``).

    Returns ``(sorted_values, unverified)``: the values in R's order and, for ``"icu"``, those
    containing characters whose place in ICU's order pysdc does not reproduce (placed last, by
    code point; empty when every value is covered).
    """
    vals = list(values)
    if collation == "C":
        return sorted(vals), []
    if collation != "icu":
        raise ValueError(f"collation must be one of {COLLATIONS}; got {collation!r}")
    unverified = [v for v in vals if not _elements(v)[1]]
    return sorted(vals, key=icu_sort_key), unverified
