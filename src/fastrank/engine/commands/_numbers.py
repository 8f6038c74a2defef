"""Numbers as Redis 7.0 reads and writes them (no C library involved).

- ``parse_int``: Redis's string2ll: canonical signed 64-bit decimal only.
- ``strtod_prefix``: what C ``strtod`` consumes (leading blanks, sign,
  decimal/exponent, hex floats, inf/infinity, nan) and the double it makes;
  ``parse_score`` (strict, ZADD/ZINCRBY/WEIGHTS) and ``parse_bound`` (loose,
  ZRANGEBYSCORE bounds) are built on it as Redis builds them on strtod.
- ``format_double``: C ``%.17g`` (RESP2 text of a score).
- INCRBYFLOAT's x87 80-bit ``long double``: ``parse_long_double`` rounds the
  exact decimal (or hex) value to a 64-bit significand (round-half-even,
  subnormals, overflow), ``add_long_double`` rounds the exact sum, and
  ``format_long_double`` is ``%.17Lf`` with trailing zeros removed. Values are
  kept as exact ``Fraction`` objects, so every step is correctly rounded as
  the hardware and glibc do it.
"""
from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Literal, Union, cast

# An exact value, or the "huge"/"tiny" marker of an absurd exponent (_scaled).
_Scaled = Union[Fraction, Literal["huge", "tiny"]]
# An x87 long double: exact when finite, a float ±inf/nan otherwise.
LongDouble = Union[Fraction, float]

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1

_INT_RE = re.compile(rb"(?:0|-?[1-9][0-9]{0,19})\Z")
_C_SPACE = b" \t\n\v\f\r"
_NUMBER_RE = re.compile(
    rb"[+-]?(?:"
    rb"(?P<inf>inf(?:inity)?)"
    rb"|(?P<nan>nan(?:\([0-9a-z_]*\))?)"
    rb"|(?P<hex>0x(?:[0-9a-f]+\.?[0-9a-f]*|\.[0-9a-f]+)(?:p[+-]?[0-9]+)?)"
    rb"|(?P<dec>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?)"
    rb")",
    re.IGNORECASE,
)


def parse_int(text: bytes) -> int | None:
    """The int64 in ``text`` (Redis string2ll rules) or None."""
    if _INT_RE.match(text) is None:
        return None
    value = int(text)
    if value < INT64_MIN or value > INT64_MAX:
        return None
    return value


def _exact(match: re.Match[bytes]) -> tuple[str, bool | _Scaled]:
    """(kind, x) of a _NUMBER_RE match: kind inf/nan with x the sign (True if
    negative), or num with x a Fraction or the "huge"/"tiny" marker (unsigned)."""
    text = match.group(0)
    negative = text[:1] == b"-"
    if match.group("inf"):
        return "inf", negative
    if match.group("nan"):
        return "nan", negative
    if match.group("hex"):
        body = match.group("hex")[2:].lower()
        mant, _, exp = body.partition(b"p")
        whole, _, frac = mant.partition(b".")
        digits = (whole + frac) or b"0"
        exponent = (int(exp) if exp else 0) - 4 * len(frac)
        value = _scaled(int(digits, 16), 2, exponent)
    else:
        body = match.group("dec").lower()
        mant, _, exp = body.partition(b"e")
        whole, _, frac = mant.partition(b".")
        digits = (whole + frac) or b"0"
        exponent = (int(exp) if exp else 0) - len(frac)
        value = _scaled(_dec_int(digits), 10, exponent)
    if negative and isinstance(value, Fraction):  # "huge"/"tiny" keep no sign
        value = -value
    return "num", value


_CHUNK = 1000


def _dec_int(digits: bytes) -> int:
    """int(digits) without Python's 4300-digit conversion limit."""
    value = 0
    for i in range(0, len(digits), _CHUNK):
        part = digits[i:i + _CHUNK]
        value = value * 10 ** len(part) + int(part)
    return value


def _dec_text(n: int) -> bytes:
    """Decimal text of n >= 0 without Python's 4300-digit conversion limit."""
    if n < 10**_CHUNK:
        return b"%d" % n
    parts = []
    while n:
        n, part = divmod(n, 10**_CHUNK)
        parts.append(part)
    return b"%d" % parts[-1] + b"".join(b"%0*d" % (_CHUNK, p) for p in reversed(parts[:-1]))


def _dec_len(n: int) -> int:
    """Number of decimal digits of n > 0 (cheap, exact)."""
    guess = int(n.bit_length() * 0.30102999566398120) + 1
    return guess if n >= 10 ** (guess - 1) else guess - 1


# Exponents beyond these bounds give 0 or inf in every format used here.
_BIG = 1 << 20


def _scaled(digits: int, base: int, exponent: int) -> _Scaled:
    """digits * base**exponent as a Fraction; "huge"/"tiny" markers when absurd."""
    if digits == 0:
        return Fraction(0)
    size = digits.bit_length() if base == 2 else _dec_len(digits)
    if exponent + size > _BIG // (4 if base == 2 else 64):
        return "huge"
    if exponent + size < -_BIG // (4 if base == 2 else 64):
        return "tiny"
    if exponent >= 0:
        return Fraction(digits * base**exponent)
    return Fraction(digits, base ** (-exponent))


def strtod_prefix(text: bytes) -> tuple[re.Match[bytes] | None, int]:
    """(match or None, end): what strtod consumes from ``text``.

    ``end`` is the index just past the number, or 0 when nothing converts
    (strtod then sets its end pointer to the start, blanks included).
    """
    start = len(text) - len(text.lstrip(_C_SPACE))
    match = _NUMBER_RE.match(text, start)
    if match is None:
        return None, 0
    return match, match.end()


def match_to_double(match: re.Match[bytes]) -> tuple[float, bool]:
    """(double, erange) for a strtod match, correctly rounded (as glibc)."""
    text = match.group(0)
    negative = text[:1] == b"-"
    if match.group("inf"):
        return (-math.inf if negative else math.inf), False
    if match.group("nan"):
        return math.nan, False
    if match.group("hex"):
        mantissa = match.group("hex")[2:].lower().partition(b"p")[0]
        try:
            value = float.fromhex(text.decode())
        except OverflowError:
            value = -math.inf if negative else math.inf
    else:
        mantissa = match.group("dec").lower().partition(b"e")[0]
        value = float(text)
    if math.isinf(value):
        return value, True
    if value == 0.0 and mantissa.strip(b"0.") != b"":
        return value, True
    return value, False


# Plain decimal text, where Python's float() and C's strtod agree (both
# round correctly); anything else takes the general parser below.
_PLAIN_DECIMAL = re.compile(rb"-?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?\Z")


def parse_score(text: bytes) -> float | None:
    """Redis getDoubleFromObject: strict strtod, or None when invalid."""
    if _PLAIN_DECIMAL.match(text):
        value = float(text)
        if value and value - value == 0.0:  # finite and non-zero: no ERANGE to judge
            return value
    if not text or text[:1] in (b" ", b"\t", b"\n", b"\v", b"\f", b"\r"):
        return None
    match, end = strtod_prefix(text)
    if match is None or end != len(text):
        return None
    value, erange = match_to_double(match)
    if erange and (math.isinf(value) or value == 0.0):
        return None
    if value != value:
        return None
    return value


_INFINITIES = {b"inf": math.inf, b"+inf": math.inf, b"-inf": -math.inf}


def parse_bound(text: bytes) -> tuple[float, bool] | None:
    """Redis zslParseRange bound: (value, exclusive) or None when invalid."""
    exclusive = text[:1] == b"("
    if exclusive:
        text = text[1:]
    if _PLAIN_DECIMAL.match(text):  # float() and strtod agree, overflow to ±inf included
        return float(text), exclusive
    infinite = _INFINITIES.get(text)
    if infinite is not None:
        return infinite, exclusive
    nul = text.find(b"\0")
    if nul >= 0:  # strtod stops at the C string's end
        text = text[:nul]
    match, end = strtod_prefix(text)
    if end != len(text):
        return None
    value = 0.0 if match is None else match_to_double(match)[0]
    if value != value:
        return None
    return value, exclusive


def format_double(value: float) -> bytes:
    """C ``%.17g`` of a double, as Redis writes a score in RESP2."""
    if math.isinf(value):
        return b"inf" if value > 0 else b"-inf"
    return (b"%.17g" % value)


# -- x87 80-bit long double (INCRBYFLOAT) -----------------------------------

_LD_MANT = 64
_LD_MIN_EXP = -16445  # quantum of the smallest subnormal
_LD_MAX = Fraction((1 << 64) - 1) * Fraction(2) ** (16383 - 63)
MAX_LONG_DOUBLE_CHARS = 5 * 1024


def _round_ld(x: Fraction) -> LongDouble:
    """x rounded to the nearest 80-bit value (ties to even); math.inf on overflow."""
    if x == 0:
        return Fraction(0)
    sign = -1 if x < 0 else 1
    x = abs(x)
    e = x.numerator.bit_length() - x.denominator.bit_length() - _LD_MANT
    while True:  # choose e so that 2**63 <= x / 2**e < 2**64
        scaled = x / (Fraction(2) ** e)
        if scaled >= (1 << _LD_MANT):
            e += 1
        elif scaled < (1 << (_LD_MANT - 1)):
            e -= 1
        else:
            break
    if e < _LD_MIN_EXP:
        e = _LD_MIN_EXP
        scaled = x / (Fraction(2) ** e)
    q, r = divmod(scaled.numerator, scaled.denominator)
    twice = 2 * r
    if twice > scaled.denominator or (twice == scaled.denominator and q & 1):
        q += 1
    result = Fraction(q) * Fraction(2) ** e
    if result > _LD_MAX:
        return math.inf * sign
    return result * sign


def parse_long_double(text: bytes) -> LongDouble | None:
    """Redis string2ld: the value (Fraction, or ±math.inf) or None when invalid."""
    if not text or len(text) >= MAX_LONG_DOUBLE_CHARS or text[:1] in _C_SPACE_SET:
        return None
    match, end = strtod_prefix(text)
    if match is None or end != len(text) or b"\0" in text:
        return None
    kind, value = _exact(match)
    negative = match.group(0)[:1] == b"-"
    if kind == "nan":
        return None
    if kind == "inf":
        return -math.inf if negative else math.inf
    if not isinstance(value, Fraction):
        return None  # "huge"/"tiny": ERANGE with inf or zero
    rounded = _round_ld(value)
    if isinstance(rounded, float) or (rounded == 0 and value != 0):
        return None
    return rounded


_C_SPACE_SET = {bytes([c]) for c in _C_SPACE}


def add_long_double(a: LongDouble, b: LongDouble) -> LongDouble:
    """a + b in 80-bit arithmetic; a float inf/nan when not finite."""
    infinite = [x for x in (a, b) if isinstance(x, float)]
    if infinite:  # finite operands may lie beyond the double range: never convert them
        return infinite[0] + infinite[-1]
    return _round_ld(cast(Fraction, a + b))  # both finite: exact Fractions


def format_long_double(value: Fraction) -> bytes:
    """``%.17Lf`` with trailing zeros (and a trailing dot) removed; ``-0`` → ``0``."""
    negative = value < 0
    scaled = abs(value) * 10**17
    q, r = divmod(scaled.numerator, scaled.denominator)
    twice = 2 * r
    if twice > scaled.denominator or (twice == scaled.denominator and q & 1):
        q += 1
    whole, frac = divmod(q, 10**17)
    text = _dec_text(whole) + b".%017d" % frac
    text = text.rstrip(b"0").rstrip(b".")
    if negative:
        text = b"-" + text
    if text == b"-0":
        text = b"0"
    return text
