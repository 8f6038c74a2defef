"""A board's descriptor: what a board stores about itself.

Every board (and sharded board, and sharded counter) keeps a small hash under
its own hash tag, ``{lb:<name>}:board`` (the name escaped as in every key:
``parts.key_part``), written once, atomically, when the board is first
opened: a script writes it if absent and answers the stored one
(``scripts/describe.lua``). It holds, as text:

- ``schema``: the layout version of the descriptor and the board's keys;
- ``kind``: ``board`` or ``sharded``;
- ``order``, ``tiebreak`` (empty for None), ``ranking``, ``rule``,
  ``point_bits``, ``time_bits``: what decides the board's scores and ranks;
- ``period``, ``tz``, ``retain`` (empty when unset): a periodic board's calendar;
- ``season``: the current season (empty for none), moved by ``rollover``;
- on a sharded board, ``shards`` and ``generation``: the layout its keys use now.

A process that opens a board by name alone takes these; an option it gives
that differs from the stored one raises :class:`fastrank.BoardConfigMismatch`
instead of opening a board that would read the stored scores with other
bits. Presentation options (``buckets``, ``cache_ttl``, ``passed``) are each
process's own and not stored.
"""
from __future__ import annotations

import enum
from datetime import timedelta, timezone, tzinfo
from importlib import resources
from typing import Any, Dict, List, Mapping, Sequence, Tuple, Union

from fastrank.errors import BoardConfigMismatch
from fastrank.leaderboard.parts import as_text, key_part
from fastrank.runner import Script

__all__ = ["SCHEMA", "UNSET", "Unset", "DESCRIBE", "REDESCRIBE", "descriptor_key", "stored_of", "tz_text",
           "tz_of", "check_given", "bare_script"]

SCHEMA = "1"
"""The version of the descriptor and of the key layout it describes."""


class Unset(enum.Enum):
    """The default of an option a caller did not give (the stored one, or
    the usual default on a new board)."""

    UNSET = "unset"

    def __repr__(self) -> str:
        return "UNSET"


UNSET = Unset.UNSET


def bare_script(name: str, *shared: str) -> Script:
    """The script ``scripts/<name>.lua`` (no board prelude: it names its own keys),
    after the shared parts ``scripts/<part>.lua`` named in ``shared``."""
    folder = resources.files("fastrank.leaderboard").joinpath("scripts")
    source = "".join(folder.joinpath(f"{part}.lua").read_text(encoding="utf-8") for part in (*shared, name))
    return Script(name, source)


DESCRIBE = bare_script("describe")
REDESCRIBE = bare_script("redescribe")


def descriptor_key(name: str) -> str:
    """The key of the descriptor of the board (or counter) ``name``."""
    return f"{{lb:{key_part(name)}}}:board"


def stored_of(reply: Sequence[Any]) -> Dict[str, str]:
    """A flat HGETALL-style reply (or a dict) as {option: text}."""
    if isinstance(reply, Mapping):
        return {as_text(k): as_text(v) for k, v in reply.items()}
    items = [as_text(x) for x in reply]
    return dict(zip(items[0::2], items[1::2]))


def flat(fields: Mapping[str, str]) -> Tuple[str, ...]:
    out: List[str] = []
    for option, text in fields.items():
        out += (option, text)
    return tuple(out)


def tz_text(tz: tzinfo) -> str:
    """A time zone as the descriptor stores it: "" for UTC, a zone's key
    (``Europe/Paris``), or a fixed offset as ``UTC+HH:MM``."""
    if tz is timezone.utc:
        return ""
    key = getattr(tz, "key", None)
    if isinstance(key, str):
        return key
    offset = tz.utcoffset(None)
    if offset is None:
        raise ValueError(f"tz must be a zone name, a ZoneInfo or a fixed offset, not {tz!r}")
    if not offset:
        return ""
    sign = "-" if offset < timedelta(0) else "+"
    minutes = abs(int(offset.total_seconds())) // 60
    return f"UTC{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def tz_of(text: str) -> Union[str, tzinfo, None]:
    """The ``tz`` option of a stored text (:func:`tz_text`'s inverse)."""
    if not text:
        return None
    if text.startswith("UTC") and len(text) == 9 and text[3] in "+-":
        sign = -1 if text[3] == "-" else 1
        return timezone(sign * timedelta(hours=int(text[4:6]), minutes=int(text[7:9])))
    return text


def check_given(what: str, name: str, stored: Mapping[str, str], given: Mapping[str, str],
                given_values: Mapping[str, Any], stored_values: Mapping[str, Any]) -> None:
    """BoardConfigMismatch for the first option of ``given`` (as text) that
    differs from the ``stored`` descriptor (as text); the error shows the
    values as Python has them (``given_values``, ``stored_values``)."""
    for option, text in given.items():
        if stored.get(option, "") != text:
            raise BoardConfigMismatch(what, name, option, stored_values.get(option), given_values.get(option, text))
