"""ZADD of a mapping in the packed column form (``zadd_form = "packed"``:
members packed in one blob, see ``Engine._zadd_general``), for the Engine.

``zadd_packed`` answers what ``zadd_pairs`` answers for the same pairs with
no flags, and leaves the same value: a missing key given more pairs than a
listpack holds becomes a skiplist loaded in one bulk build, a skiplist zset
takes the pairs in one batch (``_core.sortedset_add_packed``, which reads
each member in place from the blob); anything else (a listpack, a watched
key, few pairs, a -0.0 score) goes member by member through ``zadd_pairs``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from fastrank._core import SortedSet, sortedset_add_packed
from fastrank.engine.commands.sortedset import BULK_MIN, get_zset, zadd_pairs
from fastrank.engine.keyspace import LISTPACK_ENTRIES

if TYPE_CHECKING:
    from fastrank.engine import Engine

__all__ = ["zadd_packed"]


def zadd_packed(db: Engine, key: bytes, packed: Any) -> int:
    """Plain ZADD (no NX/XX/GT/LT/CH/INCR) of the pairs of ``packed`` at
    ``key``: the number of members added. Raises CommandError (WRONGTYPE)
    for a key of another type. O(m) into a new key, O(m log m) appended
    after the tail, else O(m log n)."""
    z = get_zset(db, key)
    scores = np.ascontiguousarray(packed.scores, dtype=np.float64)
    rows = np.ascontiguousarray(packed.rows, dtype=np.int64)
    offsets = np.ascontiguousarray(packed.offsets, dtype=np.int64)
    plain = not bool(np.any(np.signbit(scores) & (scores == 0.0)))  # -0.0 is the member path's rule
    if plain and z is None and len(rows) > LISTPACK_ENTRIES:
        fresh = SortedSet()
        added = sortedset_add_packed(fresh, packed.blob, offsets, rows, scores)
        if added > LISTPACK_ENTRIES:  # else duplicates left few enough for a listpack
            db.store(key, fresh)
            return added
    elif plain and type(z) is SortedSet and len(rows) >= BULK_MIN and not db.has_watchers():
        return sortedset_add_packed(z, packed.blob, offsets, rows, scores)
    return zadd_pairs(db, key, list(packed), scores)  # a mapping iterates its members
