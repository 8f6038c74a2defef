"""Bitmap commands on strings (Redis 7.0 semantics): GETBIT, SETBIT, BITCOUNT,
BITPOS, BITOP.

A bitmap is a string value read as bits, most significant bit of byte 0
first. A range of BITCOUNT or BITPOS is given in bytes (default) or, with
``BIT``, in bits; negative ends count from the end, and both ends are
clamped to the string. The count and the search are done over Python's
integer of the range's bytes (``int.from_bytes``: C speed, O(range)).
SETBIT rewrites the value (O(length): Redis edits it in place).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Tuple

from fastrank.engine.commands.strings import MAX_STRING, get_string
from fastrank.engine.commands.table import CommandError, command, syntax_error, to_int

if TYPE_CHECKING:
    from fastrank.engine import Engine

BIT_OFFSET = "ERR bit offset is not an integer or out of range"
BIT_VALUE = "ERR bit is not an integer or out of range"
BITPOS_BIT = "ERR The bit argument must be 1 or 0."
BITOP_NOT_ONE_KEY = "ERR BITOP NOT must be called with a single source key."


def _bit_offset(arg: bytes) -> int:
    """A GETBIT/SETBIT offset: 0 .. 2**32 - 1 (a 512 MB string's bits)."""
    offset = to_int(arg, BIT_OFFSET)
    if offset < 0 or offset >> 3 >= MAX_STRING:
        raise CommandError(BIT_OFFSET)
    return offset


@command("getbit", 3)
def getbit(db: Engine, args: list[bytes]) -> Any:
    offset = _bit_offset(args[1])
    value = get_string(db, args[0])
    if value is None or offset >> 3 >= len(value):
        return 0
    return value[offset >> 3] >> (7 - (offset & 7)) & 1


@command("setbit", 4, write=True)
def setbit(db: Engine, args: list[bytes]) -> Any:
    offset = _bit_offset(args[1])
    on = to_int(args[2], BIT_VALUE)
    if on not in (0, 1):
        raise CommandError(BIT_VALUE)
    key, byte, mask = args[0], offset >> 3, 1 << (7 - (offset & 7))
    old = get_string(db, key)
    text = bytearray(b"" if old is None else old)
    was = 1 if byte < len(text) and text[byte] & mask else 0
    if old is not None and byte < len(text) and was == on:
        return was  # nothing changes (Redis does not signal the key either)
    if byte >= len(text):
        text.extend(bytes(byte + 1 - len(text)))
    text[byte] = text[byte] | mask if on else text[byte] & ~mask
    new = bytes(text)
    if old is None:
        db.store(key, new)
    else:
        db.replace(key, new)
    db.mark_string(key, new, b"raw")  # (Redis edits the string in place: raw)
    return was


def _bit_range(args: list[bytes], length: int, end_at: int) -> Tuple[int, int, bool]:
    """The inclusive bit range [first, last] of ``start end [BYTE|BIT]`` read
    from ``args[0:]`` (``end`` and the unit optional), over a string of
    ``length`` bytes, as BITCOUNT and BITPOS clamp it (first > last: empty);
    and whether an end was given. ``end_at``: how many arguments a unit is
    looked for after (BITCOUNT parses both ends before the unit, BITPOS
    the start, the unit, then the end)."""
    start = to_int(args[0])
    in_bits = False
    if end_at == 1 and len(args) == 3:
        in_bits = _unit(args[2])
    end_given = len(args) >= 2
    if end_given:
        end = to_int(args[1])
        if end_at == 2 and len(args) == 3:
            in_bits = _unit(args[2])
    else:
        end = length * 8 + 7 if in_bits else length - 1
    total = length * 8 if in_bits else length
    if start < 0:
        start += total
    if end < 0:
        end += total
    start, end = max(start, 0), max(end, 0)
    end = min(end, total - 1)
    if start > end:
        return 1, 0, end_given
    return (start, end, end_given) if in_bits else (start * 8, end * 8 + 7, end_given)


def _unit(arg: bytes) -> bool:
    """True for ``BIT``, False for ``BYTE`` (any case), else a syntax error."""
    unit = arg.lower()
    if unit not in (b"bit", b"byte"):
        raise syntax_error()
    return unit == b"bit"


def _bits(value: bytes, first: int, last: int) -> Tuple[int, int]:
    """The bits ``first..last`` of ``value`` as an integer (bit ``first``
    highest) and how many there are."""
    width = last - first + 1
    number = int.from_bytes(value[first >> 3:(last >> 3) + 1], "big")
    return number >> (7 - (last & 7)) & ((1 << width) - 1), width


@command("bitcount", -2)
def bitcount(db: Engine, args: list[bytes]) -> Any:
    value = get_string(db, args[0])
    if value is None:
        return 0
    if len(args) == 1:
        return int.from_bytes(value, "big").bit_count()
    if len(args) not in (3, 4):
        raise syntax_error()
    start, end = to_int(args[1]), to_int(args[2])
    if start < 0 and end < 0 and start > end:
        return 0
    first, last, _ = _bit_range(args[1:], len(value), 2)
    if first > last:
        return 0
    return _bits(value, first, last)[0].bit_count()


@command("bitpos", -3)
def bitpos(db: Engine, args: list[bytes]) -> Any:
    bit = to_int(args[1])
    if bit not in (0, 1):
        raise CommandError(BITPOS_BIT)
    value = get_string(db, args[0])
    if value is None:
        return -1 if bit else 0
    if len(args) == 2:
        first, last, end_given = 0, len(value) * 8 - 1, False
    elif len(args) <= 5:
        first, last, end_given = _bit_range(args[2:], len(value), 1)
    else:
        raise syntax_error()
    if first > last:
        return -1
    number, width = _bits(value, first, last)
    if not bit:
        number ^= (1 << width) - 1  # look for the first set bit of the complement
    if number:
        return first + width - number.bit_length()
    if bit or end_given:
        return -1
    return last + 1  # no clear bit: the first one after the string (its zero padding)


@command("bitop", -4, write=True)
def bitop(db: Engine, args: list[bytes]) -> Any:
    op = args[0].lower()
    if op not in (b"and", b"or", b"xor", b"not"):
        raise syntax_error()
    sources = args[2:]
    if op == b"not" and len(sources) != 1:
        raise CommandError(BITOP_NOT_ONE_KEY)
    values = [get_string(db, key) or b"" for key in sources]
    size = max(len(v) for v in values)
    if not size:
        db.remove(args[1])
        return 0
    numbers = [int.from_bytes(v.ljust(size, b"\0"), "big") for v in values]
    result: Optional[int] = None
    for number in numbers:
        if result is None:
            result = number
        elif op == b"and":
            result &= number
        elif op == b"or":
            result |= number
        else:
            result ^= number
    assert result is not None
    if op == b"not":
        result ^= (1 << (size * 8)) - 1
    new = result.to_bytes(size, "big")
    db.store(args[1], new)
    db.mark_string(args[1], new, b"raw")
    return size

