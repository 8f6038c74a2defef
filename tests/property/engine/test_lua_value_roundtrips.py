"""Properties of the script environment's value conversions on the Engine.

Hypothesis draws nested values (integers, fractions, byte strings with NUL
and high bytes, arrays, string-keyed maps), writes them as Lua literals and
checks that

- a script returning the value (arrays of scalars) gives the reply Redis's
  rules make (numbers truncated toward zero, false a nil inside the array);
- ``cmsgpack.unpack(cmsgpack.pack(v))`` and ``cjson.decode(cjson.encode(v))``
  give back a value that encodes to the same bytes (maps of one key);
- ``struct.unpack(fmt, struct.pack(fmt, n))`` gives ``n`` back for integers
  that fit the format;
- ARGV carries any bytes unchanged, and ``redis.call('set')``/``get`` too.

The differential suite (tests/compat/commands/test_diff_scripting.py) compares the same
functions with the real server case by case; these properties cover the
value space.
"""
from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fastrank import Engine

ENGINE = Engine()

scalars = st.one_of(
    st.integers(min_value=-(2 ** 40), max_value=2 ** 40),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e15, max_value=1e15),
    st.binary(max_size=12),
    st.booleans(),
)
names = st.text(alphabet="abcdefghij", min_size=1, max_size=4).map(lambda s: "k_" + s)
# Maps hold one key: with more, the order `next` walks depends on the order the
# keys went in, which a decode does not keep (on Redis either).
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(names, inner, max_size=1)),
    max_leaves=12,
)


def lua(value: Any) -> str:
    """A Lua literal for value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, bytes):
        return '"' + "".join(f"\\{b}" for b in value) + '"'
    if isinstance(value, list):
        return "{" + ", ".join(lua(v) for v in value) + "}"
    return "{" + ", ".join(f"{k} = {lua(v)}" for k, v in value.items()) + "}"


def expected_reply(value: Any) -> Any:
    """Redis's conversion of a Lua value into a reply, for maps-free values."""
    if isinstance(value, bool):
        return 1 if value else None
    if isinstance(value, (int, float)):
        return int(math.trunc(value))
    if isinstance(value, bytes):
        return value
    out = []
    for v in value:
        out.append(expected_reply(v))
    return out


@settings(max_examples=200, deadline=None)
@given(st.recursive(scalars, lambda inner: st.lists(inner, max_size=4), max_leaves=12))
def test_reply_conversion(value: Any) -> None:
    reply = ENGINE.eval(f"return {{{lua(value)}}}", 0)
    # false is a value in a Lua array (a nil reply inside it), not its end
    assert reply == expected_reply([value])


@settings(max_examples=200, deadline=None)
@given(values)
def test_msgpack_and_json_round_trips(value: Any) -> None:
    script = (f"local v = {{{lua(value)}}} "
              "local p = cmsgpack.pack(v) "
              "local j = cjson.encode(v) "
              "return {p == cmsgpack.pack(cmsgpack.unpack(p)) and 1 or 0, "
              "j == cjson.encode(cjson.decode(j)) and 1 or 0}")
    assert ENGINE.eval(script, 0) == [1, 1]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([(">i", 32, True), ("<I", 32, False), (">h", 16, True), ("B", 8, False),
                        ("<i8", 64, True), (">I3", 24, False)]),
       st.integers(min_value=-(2 ** 63), max_value=2 ** 64))
def test_struct_round_trip(fmt: Any, n: int) -> None:
    code, bits, signed = fmt
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    n = max(low, min(high, n))
    if abs(n) >= 2 ** 53:  # Lua numbers are doubles
        n = int(float(n)) if low <= int(float(n)) <= high else 0
    script = "return tostring(struct.unpack(ARGV[1], struct.pack(ARGV[1], tonumber(ARGV[2]))))"
    assert ENGINE.eval(script, 0, code, str(n)) == ("%.14g" % n).encode()


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=40))
def test_bytes_pass_through_unchanged(data: bytes) -> None:
    script = "redis.call('set', KEYS[1], ARGV[1]) return {ARGV[1], redis.call('get', KEYS[1])}"
    assert ENGINE.eval(script, 1, "prop:bytes", data) == [data, data]
