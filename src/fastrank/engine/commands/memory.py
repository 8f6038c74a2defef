"""MEMORY USAGE: the bytes a key really holds in this process.

Redis answers with its allocator's view of the key (dict entry, key string,
value object and its parts). The Engine answers with the same idea measured
here: the key's bytes object and its dict slots, plus the value's footprint --
for the compiled structures what their C allocations hold (a SortedSet's
arena and index after compaction, a sketch's counters), for Python values
(strings, hashes, sets) ``sys.getsizeof`` of the container and its elements.
The numbers therefore differ from a Redis server's for the same data (they
are this process's, not Redis's), as the compatibility notes say; what holds
is the shape: an int for a present key, None for a missing one, and the same
errors. SAMPLES n, as in Redis, estimates a hash or set from its first n
elements (0: all of them); the default is 5.
"""
from __future__ import annotations

import sys
from itertools import islice
from typing import TYPE_CHECKING, Any, Iterable

from fastrank import errors as E
from fastrank._core import CountMinSketch, HyperLogLog, SortedSet, TopK
from fastrank.engine.commands.table import CommandError, command, syntax_error, to_int

if TYPE_CHECKING:
    from fastrank.engine import Engine

#: Redis's default number of elements MEMORY USAGE looks at in a collection.
DEFAULT_SAMPLES = 5
#: Bytes of one dict slot (hash, key and value pointers) holding a key.
_SLOT = 3 * 8


def _elements(values: Iterable[Any], samples: int) -> list[Any]:
    """The first ``samples`` of values (all of them for 0)."""
    return list(values) if samples == 0 else list(islice(values, samples))


def _sampled(seen: list[Any], total: int) -> int:
    """Bytes of a collection of ``total`` elements, estimated from ``seen``."""
    if not seen:
        return 0
    return sum(sys.getsizeof(e) for e in seen) * total // len(seen)


def value_bytes(value: Any, samples: int) -> int:
    """The footprint of one stored value (see the module docstring).  O(1)
    for the compiled structures and strings, O(samples) for hashes and sets."""
    size = sys.getsizeof(value)
    if isinstance(value, SortedSet):
        return size + int(value.memory_usage())
    if isinstance(value, CountMinSketch):
        return size + value.width * value.depth * 4
    if isinstance(value, TopK):
        heap = value.list()
        return size + value.width * value.depth * 8 + value.k * 32 + sum(len(m) for m in heap)
    if isinstance(value, HyperLogLog):
        return size + len(value)
    if isinstance(value, dict):
        flat = [x for pair in _elements(value.items(), samples) for x in pair]
        return size + _sampled(flat, 2 * len(value))
    if isinstance(value, set):
        return size + _sampled(_elements(value, samples), len(value))
    return size


@command("memory", -2)
def memory(db: Engine, args: list[bytes]) -> Any:
    """MEMORY USAGE key [SAMPLES count]; other subcommands are unknown here."""
    sub = args[0].upper()
    if sub != b"USAGE":
        raise CommandError(E.UNKNOWN_SUBCOMMAND % (args[0].decode("utf-8", "replace"), "MEMORY"))
    if len(args) < 2:
        raise CommandError(E.WRONG_ARITY % "memory|usage")
    samples = DEFAULT_SAMPLES
    j = 2
    while j < len(args):
        if args[j].upper() == b"SAMPLES" and j + 1 < len(args):
            samples = to_int(args[j + 1])
            if samples < 0:
                raise syntax_error()
            j += 2
        else:
            raise syntax_error()
    key = args[1]
    value = db.lookup(key)
    if value is None:
        return None
    slots = _SLOT * (2 if db.has_deadline(key) else 1)
    return sys.getsizeof(key) + slots + value_bytes(value, samples)
