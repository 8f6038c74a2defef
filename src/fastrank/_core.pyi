"""Types of the compiled core, fastrank._core.

A member is a binary string. Wherever a member is accepted, ``bytes``,
``bytearray`` and ``memoryview`` are taken as they are, ``str`` is UTF-8
encoded, ``int`` becomes its decimal text and ``float`` its ``repr`` (as
redis-py encodes them). Members are always returned as ``bytes``.

Order: ascending score (IEEE double), ties by member bytes compared
unsigned, memcmp style, a proper prefix first; ``reverse=True`` is the exact
reverse of that order. NaN scores raise ``ValueError``; ``±inf`` are valid;
``-0.0`` is stored as given (it equals ``0.0``, so it sorts with it and an
existing ``0.0`` is not changed by setting ``-0.0``; ``incr`` of a missing
member computes ``0.0 + delta``).
"""
from types import TracebackType
from typing import (Any, Set, Callable, Dict, Iterable, Iterator, List, Literal, Mapping, Optional,
                    Sequence, Tuple, Type, Union, final, overload)

import numpy as np
import numpy.typing as npt
from redis.typing import EncodableT, FieldT, KeyT, ZSetRangeResponse
from typing_extensions import disjoint_base

from fastrank.engine import Engine

# Type aliases of this stub only (private: nothing by these names at runtime).
_Member = Union[bytes, bytearray, memoryview, str, int, float]
_MemberSeq = Union[Sequence[_Member], npt.NDArray[np.integer]]

@disjoint_base
class SortedSet:
    def __init__(self) -> None: ...
    # -- point operations ----------------------------------------------
    def add(
        self,
        member: _Member,
        score: float,
        *,
        nx: bool = False,
        xx: bool = False,
        gt: bool = False,
        lt: bool = False,
    ) -> bool:
        """Add or update; True when the member was added or its score changed.

        Flags as ZADD: nx never updates, xx never adds, gt/lt update an
        existing member only to a strictly greater/smaller score (a new
        member is still added unless xx).
        """
    def add_status(
        self,
        member: _Member,
        score: float,
        nx: bool = False,
        xx: bool = False,
        gt: bool = False,
        lt: bool = False,
    ) -> int:
        """As add, but tells what happened: 0 nothing, 1 added, 2 score changed."""
    def incr(self, member: _Member, delta: float) -> float:
        """Add delta to the score (a missing member starts at 0); the new score.

        A NaN result raises ValueError and changes nothing.
        """
    def remove(self, member: _Member) -> bool: ...
    def score(self, member: _Member) -> Optional[float]: ...
    def rank(self, member: _Member, reverse: bool = False) -> Optional[int]: ...
    def __len__(self) -> int: ...
    def __contains__(self, member: object, /) -> bool: ...
    def __iter__(self) -> Iterator[bytes]:
        """Members in ascending order."""
    def items(self) -> List[Tuple[bytes, float]]:
        """All (member, score) pairs in ascending order."""
    def clear(self) -> None: ...
    def copy(self, *, cls: Optional[type] = None, attributes: bool = True) -> Any:
        """A copy of type(self) (or cls), a subclass's attributes included."""
    def __copy__(self) -> "SortedSet": ...
    def __deepcopy__(self, memo: Any) -> "SortedSet": ...
    # -- ranges --------------------------------------------------------
    @overload
    def range(
        self, start: int, stop: int, reverse: bool = False, withscores: Literal[False] = False
    ) -> List[bytes]:
        """Members by rank, both ends inclusive, Redis's negative-index rules."""
    @overload
    def range(
        self, start: int, stop: int, reverse: bool, withscores: Literal[True]
    ) -> List[Tuple[bytes, float]]: ...
    @overload
    def range(
        self, start: int, stop: int, reverse: bool = False, *, withscores: Literal[True]
    ) -> List[Tuple[bytes, float]]: ...
    @overload
    def range(
        self, start: int, stop: int, reverse: bool = False, withscores: bool = False
    ) -> Union[List[bytes], List[Tuple[bytes, float]]]: ...
    def range_by_score(
        self,
        min: float,
        max: float,
        *,
        min_exclusive: bool = False,
        max_exclusive: bool = False,
        reverse: bool = False,
        offset: int = 0,
        count: int = -1,
        withscores: bool = False,
    ) -> Union[List[bytes], List[Tuple[bytes, float]]]:
        """Members with min <= score <= max (bounds as given, whatever reverse).

        offset < 0 gives []; count < 0 means all remaining (as ZRANGEBYSCORE
        LIMIT). With reverse the walk starts at max.
        """
    def count(
        self, min: float, max: float, *, min_exclusive: bool = False, max_exclusive: bool = False
    ) -> int: ...
    def range_by_lex(
        self,
        min: Optional[bytes],
        max: Optional[bytes],
        *,
        min_exclusive: bool = False,
        max_exclusive: bool = False,
        reverse: bool = False,
        offset: int = 0,
        count: int = -1,
    ) -> List[bytes]:
        """Members between min and max in member order (ZRANGEBYLEX).

        None stands for an open end (Redis's ``-`` for min, ``+`` for max).
        Meaningful when all scores are equal, as in Redis.
        """
    def count_by_lex(
        self,
        min: Optional[bytes],
        max: Optional[bytes],
        *,
        min_exclusive: bool = False,
        max_exclusive: bool = False,
    ) -> int: ...
    def pop_min(self, n: int = 1) -> List[Tuple[bytes, float]]: ...
    def pop_max(self, n: int = 1) -> List[Tuple[bytes, float]]: ...
    def remove_range_by_rank(self, start: int, stop: int) -> int: ...
    def remove_range_by_score(
        self, min: float, max: float, *, min_exclusive: bool = False, max_exclusive: bool = False
    ) -> int: ...
    def remove_range_by_lex(
        self,
        min: Optional[bytes],
        max: Optional[bytes],
        *,
        min_exclusive: bool = False,
        max_exclusive: bool = False,
    ) -> int: ...
    # -- batch (numpy) -------------------------------------------------
    def add_many(self, members: _MemberSeq, scores: npt.ArrayLike) -> int:
        """Set each member's score (later duplicates win); the number added.

        All scores are checked for NaN before anything is written.
        """
    def incr_many(self, members: _MemberSeq, deltas: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """incr for each pair in order; the new scores."""
    def rank_many(self, members: _MemberSeq, reverse: bool = False) -> npt.NDArray[np.int64]:
        """rank of each member, -1 where missing."""
    def score_many(self, members: _MemberSeq) -> npt.NDArray[np.float64]:
        """score of each member, NaN where missing."""
    # -- diagnostics ---------------------------------------------------
    def memory_usage(self) -> int:
        """Bytes allocated by the C structures (records, tree nodes and index)."""
    def _check(self) -> None:
        """Verify every invariant (order, spans, levels, index); AssertionError if broken."""


# -- sketches (RedisBloom 2.8: structures/cms.pxi, structures/topk.pxi) ------------------
# Items are encoded as members are (above).  A numpy INTEGER array of items is
# hashed as each number's decimal text, in C, with no Python object per item;
# other numpy arrays go through .tolist().  Every check runs before anything
# changes: on error a sketch is unchanged.  Error messages carry RedisBloom
# 2.8.2's exact texts where RedisBloom has the same condition (the constants
# CMS_ERR_* / TOPK_ERR_* below, defined in fastrank.errors), for
# fastrank.Engine to re-raise.

_Increments = Union[int, Sequence[int], npt.NDArray[np.integer]]

CMS_OVERFLOW: int  # 2**32 - 1
CMS_ERR_KEY_EXISTS: str
CMS_ERR_NO_KEY: str
CMS_ERR_WIDTH: str
CMS_ERR_DEPTH: str
CMS_ERR_ERROR: str
CMS_ERR_PROB: str
CMS_ERR_INIT: str
CMS_ERR_NO_MEMORY: str
CMS_ERR_NOT_READY: str
CMS_ERR_PARSE: str
CMS_ERR_NEGATIVE: str
CMS_ERR_INCRBY_OVERFLOW: str
CMS_ERR_NUMKEYS: str
CMS_ERR_WRONG_KEYS: str
CMS_ERR_WRONG_KEYS_WEIGHTS: str
CMS_ERR_WEIGHT: str
CMS_ERR_SHAPE: str
CMS_ERR_MERGE_OVERFLOW: str
TOPK_ERR_KEY_EXISTS: str
TOPK_ERR_NO_KEY: str
TOPK_ERR_K: str
TOPK_ERR_WIDTH: str
TOPK_ERR_DEPTH: str
TOPK_ERR_DECAY: str
TOPK_ERR_NO_MEMORY: str
TOPK_ERR_NOT_READY: str
TOPK_ERR_INCREMENT: str
TOPK_ERR_WITHCOUNT: str
TOPK_MAX_INCREMENT: int  # 100000

def murmurhash2(item: _Member, seed: int = 0) -> int:
    """32-bit MurmurHash2 (RedisBloom's CMS row hash with seed = row; TopK fingerprint seed 1919)."""

@disjoint_base
class CountMinSketch:
    """width x depth saturating uint32 counters; row i column = murmurhash2(item, i) % width.

    Same counters, INCRBY replies, QUERY answers and INFO as RedisBloom 2.8.
    ValueError("CMS: invalid width"/"CMS: invalid depth") for dims < 1
    (TypeError with the same text for non-integers).
    """
    OVERFLOW: int  # 2**32 - 1, the incrby overflow marker
    def __init__(self, width: int, depth: int) -> None: ...
    @classmethod
    def from_error(cls, error: float, probability: float) -> "CountMinSketch":
        """Sized as CMS.INITBYPROB: width = ceil(2/error) (double),
        depth = ceil(log10f(p)/log10f(0.5)) (single precision).

        ValueError "CMS: invalid overestimation value" / "CMS: invalid prob
        value" outside (0, 1); "CMS: invalid init arguments" when the sizes
        are unusable.
        """
    @property
    def width(self) -> int: ...
    @property
    def depth(self) -> int: ...
    @property
    def total(self) -> int:
        """Sum of all increments, signed 64-bit wrapping (CMS.INFO count)."""
    def info(self) -> Dict[str, int]:
        """{'width': w, 'depth': d, 'count': total}"""
    @overload
    def incrby(self, items: npt.NDArray[Any], increments: _Increments = 1) -> npt.NDArray[np.uint32]:
        """CMS.INCRBY: per item, in order, the min of its counters after its own
        increment; OVERFLOW (2**32-1) where RedisBloom puts "CMS: INCRBY
        overflow" in the reply.  Increments are ints in [0, 2**63-1]:
        ValueError "CMS: Number cannot be negative" / "CMS: Cannot parse
        number", TypeError "CMS: Cannot parse number" for non-integers.
        """
    @overload
    def incrby(self, items: Sequence[_Member], increments: _Increments = 1) -> List[int]: ...
    def add_many(
        self, items: Union[Sequence[_Member], npt.NDArray[Any]], increments: _Increments = 1
    ) -> None:
        """incrby without the per-item results (for streams)."""
    @overload
    def query(self, items: npt.NDArray[Any]) -> npt.NDArray[np.uint32]:
        """CMS.QUERY: min of each item's counters (0 if never added)."""
    @overload
    def query(self, items: Sequence[_Member]) -> List[int]: ...
    def merge(
        self, sources: Sequence["CountMinSketch"], weights: Optional[Sequence[int]] = None
    ) -> None:
        """CMS.MERGE: overwrite self with sum(w * src); self may be a source.

        ValueError "CMS: width/depth is not equal", "CMS: wrong number of
        keys/weights", "CMS: invalid weight value" (outside int64; TypeError
        for non-integers); OverflowError "CMS: MERGE overflow" (checked
        before anything is written).
        """
    def counters(self) -> npt.NDArray[np.uint32]:
        """A (depth, width) copy of the counters."""
    def copy(self) -> "CountMinSketch": ...
    def __copy__(self) -> "CountMinSketch": ...
    def __deepcopy__(self, memo: Any) -> "CountMinSketch": ...
    def __setstate__(self, state: Any) -> None: ...
    def to_bytes(self) -> bytes:
        """fastrank's own format, version 1, little-endian (layout atop cms.c)."""
    @classmethod
    def from_bytes(cls, data: Union[bytes, bytearray, memoryview]) -> "CountMinSketch":
        """ValueError unless data is exactly a valid version-1 serialization."""
    def __eq__(self, other: object, /) -> bool: ...

@disjoint_base
class TopK:
    """HeavyKeeper as RedisBloom 2.8 (TOPK.*): replies equal RedisBloom's when
    decay == 1 or no bucket collisions; otherwise the decay coin comes from
    a seedable xoshiro256** (reproducible given seed).

    ValueError with "TopK: invalid k" / "TopK: invalid width" / "TopK:
    invalid depth" (ints in [1, 2**32-1]) or "TopK: invalid decay value.
    must be '<= 1' & '> 0'".
    """
    def __init__(
        self, k: int, width: int = 8, depth: int = 7, decay: float = 0.9, seed: Optional[int] = None
    ) -> None: ...
    @property
    def k(self) -> int: ...
    @property
    def width(self) -> int: ...
    @property
    def depth(self) -> int: ...
    @property
    def decay(self) -> float: ...
    def info(self) -> Dict[str, Union[int, float]]:
        """{'k', 'width', 'depth', 'decay'}"""
    def seed(self, seed: Optional[int]) -> None:
        """Re-seed the decay generator (None: from os.urandom)."""
    def add(self, items: Union[Sequence[_Member], npt.NDArray[Any]]) -> List[Optional[bytes]]:
        """TOPK.ADD: per item, the item it expelled from the heap, or None."""
    def incrby(
        self, items: Union[Sequence[_Member], npt.NDArray[Any]], increments: _Increments
    ) -> List[Optional[bytes]]:
        """TOPK.INCRBY; increments in [0, 100000], all checked first
        (TOPK_ERR_INCREMENT as ValueError/TypeError)."""
    def add_many(
        self, items: Union[Sequence[_Member], npt.NDArray[Any]], increments: Optional[_Increments] = None
    ) -> None:
        """incrby without the replies; a numpy integer array loops in C."""
    def query(self, items: Union[Sequence[_Member], npt.NDArray[Any]]) -> List[bool]:
        """TOPK.QUERY: whether each item is in the heap."""
    def count(self, items: Union[Sequence[_Member], npt.NDArray[Any]]) -> List[int]:
        """TOPK.COUNT: estimated counts."""
    @overload
    def list(self, withcount: Literal[False] = False) -> List[bytes]:
        """TOPK.LIST: heap items by count descending (ties in heap order),
        without count-0 slots; (item, count) pairs with withcount.  Items are
        whole (RedisBloom cuts names at a NUL byte; the Engine does that)."""
    @overload
    def list(self, withcount: Literal[True]) -> List[Tuple[bytes, int]]: ...
    @overload
    def list(self, withcount: bool) -> Union[List[bytes], List[Tuple[bytes, int]]]: ...
    def merge(self, other: "TopK") -> None:
        """Merge another TopK of the same k/width/depth/decay (ValueError
        otherwise).  Not a RedisBloom command."""
    def copy(self) -> "TopK": ...
    def __copy__(self) -> "TopK": ...
    def __deepcopy__(self, memo: Any) -> "TopK": ...
    def __setstate__(self, state: Any) -> None: ...
    def to_bytes(self) -> bytes:
        """fastrank's own format, version 1, little-endian (layout atop topk.c)."""
    @classmethod
    def from_bytes(cls, data: Union[bytes, bytearray, memoryview]) -> "TopK": ...
    def __eq__(self, other: object, /) -> bool: ...
    def _check(self) -> None:
        """Verify the heap's invariants; AssertionError if broken."""

# -- HyperLogLog (structures/hll.pxi, structures/hll.c) ---------------------------------
# The state of a HyperLogLog *is* the Redis 7.0 HLL string: to_bytes() equals
# GET after the same PFADD/PFCOUNT/PFMERGE on a Redis server, byte for byte,
# and a value read from Redis works here.  See docs/compatibility.md §1.

HLL_NOT_VALID_TEXT: str  # "WRONGTYPE Key is not a valid HyperLogLog string value."
HLL_CORRUPTED_TEXT: str  # "INVALIDOBJ Corrupted HLL object detected"
HLL_PART_MIN: int  # smallest part of a numpy integer add_many given its own thread (32768)

_HLLValue = Union[bytes, bytearray, memoryview]
_HLLInput = Union["HyperLogLog", bytes, bytearray, memoryview, None]

class HyperLogLogError(ValueError):
    """A string Redis refuses as an HLL; str(exc) is Redis's whole error line."""

class NotAHyperLogLog(HyperLogLogError):
    """Bad header (length < 16, magic, encoding > 1, dense length != 12304):
    str() == HLL_NOT_VALID_TEXT."""
    def __init__(self, msg: str = ...) -> None: ...

class CorruptHyperLogLog(HyperLogLogError):
    """Sparse opcodes not covering exactly 16384 registers: str() ==
    HLL_CORRUPTED_TEXT.  ``value``: the string as the failed command left it
    (a PFADD keeps the updates made before it met the corruption), or None."""
    value: Optional[bytes]
    def __init__(self, msg: str = ..., value: Optional[bytes] = None) -> None: ...

@disjoint_base
class HyperLogLog:
    """16384 six-bit registers, MurmurHash64A, Redis's sparse/dense
    encodings, cached cardinality and Ertl estimator (std error 0.81%).
    A new one holds what Redis stores after ``PFADD key`` on a missing key
    (empty, sparse, stale-cache flag set, 18 bytes)."""
    def __init__(self, *, sparse_max_bytes: int = 3000) -> None:
        """sparse_max_bytes: Redis's hll-sparse-max-bytes (header included)."""
    @classmethod
    def from_bytes(
        cls, data: _HLLValue, *, sparse_max_bytes: int = 3000, strict: bool = True
    ) -> "HyperLogLog":
        """Copy of a Redis HLL string.  NotAHyperLogLog for a bad header;
        with strict, CorruptHyperLogLog unless a sparse payload covers exactly
        16384 registers (strict=False defers that, as Redis does after SET)."""
    def to_bytes(self) -> bytes:
        """The Redis string (GET)."""
    def copy(self) -> "HyperLogLog": ...
    def __copy__(self) -> "HyperLogLog": ...
    def __setstate__(self, state: Any) -> None: ...
    def __deepcopy__(self, memo: Any) -> "HyperLogLog": ...
    def __len__(self) -> int:
        """STRLEN of the value: 18.. sparse, 12304 dense."""
    def __eq__(self, other: object, /) -> bool:
        """Same bytes."""
    @property
    def is_sparse(self) -> bool: ...
    @property
    def sparse_max_bytes(self) -> int: ...
    @sparse_max_bytes.setter
    def sparse_max_bytes(self, value: int) -> None: ...
    def add(self, item: _Member) -> bool:
        """PFADD of one member: True if a register changed (then the cache
        is marked stale)."""
    def add_many(self, items: Union[Iterable[_Member], npt.NDArray[Any]]) -> bool:
        """One PFADD of all items, in order.  Numpy integer arrays add each
        value's decimal text, 'S' arrays each item without its NUL padding,
        both looped in C with no Python object per item.  A big integer
        array's dense part runs on up to fastrank.get_threads() threads;
        the bytes and the result do not depend on the thread count."""
    def merge(self, *others: _HLLInput) -> None:
        """PFMERGE self others...: dense if self or any input is dense, else
        sparse (possibly promoted by size).  Unchanged if an input is bad."""
    def count(self) -> int:
        """PFCOUNT of one key: the cache if valid, else the estimate, stored
        in the string.  Redis's signed 64-bit reply."""
    def __int__(self) -> int: ...
    @staticmethod
    def union_count(*hlls: _HLLInput) -> int:
        """PFCOUNT k1 k2 ...: estimate of the union; no cache read or written."""
    def _registers(self) -> npt.NDArray[np.uint8]:
        """The 16384 register values."""
    def _recount(self) -> int:
        """The estimate now, ignoring and not touching the cache."""
    def _check(self) -> None:
        """AssertionError unless header and payload are valid."""

# Raw string values, for an engine that keeps HLLs as ordinary strings.
# Each takes what the key holds: None (missing), a bytes-like value, or for
# the multi-key forms a HyperLogLog; any other object raises TypeError at its
# position (the engine's "WRONGTYPE Operation against a key ..."), after the
# entries before it were checked, which is Redis's order of errors.
def pfadd_bytes(
    value: Optional[_HLLValue], members: Union[Iterable[_Member], npt.NDArray[Any]], sparse_max_bytes: int = 3000
) -> Tuple[bytes, int]:
    """PFADD: (new value, reply).  reply is 1 if a register changed or the key
    was created.  NotAHyperLogLog / CorruptHyperLogLog as Redis; on
    CorruptHyperLogLog store ``exc.value`` (Redis keeps earlier updates)."""

def pfcount_bytes(value: Optional[_HLLValue]) -> Tuple[int, Optional[bytes]]:
    """PFCOUNT of one key: (count, new value to store, or None if unchanged)."""

def pfcount_union_bytes(values: Sequence[_HLLInput]) -> int:
    """PFCOUNT of several keys (the union); values never change."""

def pfmerge_bytes(
    dest: Optional[_HLLValue], sources: Sequence[_HLLInput], sparse_max_bytes: int = 3000
) -> bytes:
    """PFMERGE dest sources...: the destination's new value (dest checked first)."""

def _hll_selftest() -> int:
    """Run the C self test (hash known answers, 6-bit packing); 0 = pass."""

def _hll_hash(data: Union[bytes, bytearray, memoryview]) -> Tuple[int, int, int]:
    """(hash, register index, rank) of one member's bytes (for tests)."""

def _hll_int_simd(allow: int = -1) -> int:
    """Let integer batches use the AVX2 path (1) or not (0); -1 only asks (for tests)."""

def _hll_hash_ints(arr: npt.NDArray[Any]) -> npt.NDArray[np.uint64]:
    """Hashes of an int64 / uint64 array's decimal texts, as add_many computes them (for tests)."""

# -- fastrank.Engine's compiled fast paths (engine/native/engine_fast.pxi) ------------

@disjoint_base
class EngineLock:
    """A re-entrant lock, a drop-in for threading.RLock (also under a
    threading.Condition), whose uncontended acquire/release are a few C
    field updates (the design of fastrlock)."""
    def __init__(self) -> None: ...
    def acquire(self, blocking: bool = True, timeout: float = -1.0) -> bool:
        """As RLock.acquire: True when acquired."""
    def release(self) -> None:
        """As RLock.release."""
    def __enter__(self) -> bool: ...
    def __exit__(
        self,
        t: Optional[Type[BaseException]],
        v: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None: ...
    def _is_owned(self) -> bool: ...
    def _release_save(self) -> Tuple[int, int]:
        """threading.Condition.wait: release completely; the state to restore."""
    def _acquire_restore(self, state: Tuple[int, int]) -> None:
        """threading.Condition.wait: take the lock again at the saved depth."""

@disjoint_base
class EngineState:
    """The parts of one Engine the compiled fast paths use, as C fields
    (shares the Engine's dicts and lock)."""
    def __new__(
        cls,
        data: Dict[bytes, Any],
        expires: Dict[bytes, int],
        lock: EngineLock,
        decode_responses: bool,
        encoding: str,
        encoding_errors: str,
    ) -> "EngineState": ...
    callbacks: Any
    stock_callbacks: bool

# Bound by fastrank.Engine as its methods (cyfunctions bind as functions do),
# with redis-py's signatures; each declines to redis-py's own method (the
# dispatch path below) for anything but the common case.
def zadd_column_pairs(members: List[Any], scores: List[Any]) -> Optional[Tuple[List[bytes], npt.NDArray[np.float64]]]: ...
def sortedset_add_packed(z: SortedSet, blob: bytes, offsets: npt.NDArray[np.int64], rows: npt.NDArray[np.int64],
                         scores: npt.NDArray[np.float64]) -> int:
    """SortedSet.add_many of members packed in one blob (rows of offsets), without member objects."""
def zadd_mapping_pairs(mapping: Dict[Any, Any]) -> Optional[Tuple[List[bytes], npt.NDArray[np.float64]]]: ...
def engine_zincrby(self: Engine, name: KeyT, amount: float, value: EncodableT) -> Optional[float]:
    """Engine.zincrby: C path for a plain skiplist zset, else the generic path."""
def engine_zscore(self: Engine, name: KeyT, value: EncodableT) -> Optional[float]:
    """Engine.zscore: C path for a zset without TTL, else the generic path."""
def engine_zrank(
    self: Engine,
    name: KeyT,
    value: EncodableT,
    withscore: bool = False,
    score_cast_func: Union[type, Callable[..., Any]] = ...,
) -> Union[int, List[Any], None]:
    """Engine.zrank: C path without withscore, else the generic path."""
def engine_zrevrank(
    self: Engine,
    name: KeyT,
    value: EncodableT,
    withscore: bool = False,
    score_cast_func: Union[type, Callable[..., Any]] = ...,
) -> Union[int, List[Any], None]:
    """Engine.zrevrank: C path without withscore, else the generic path."""
def engine_zrange(
    self: Engine,
    name: KeyT,
    start: EncodableT,
    end: EncodableT,
    desc: bool = False,
    withscores: bool = False,
    score_cast_func: Union[type, Callable[..., Any]] = ...,
    byscore: bool = False,
    bylex: bool = False,
    offset: Optional[int] = None,
    num: Optional[int] = None,
) -> ZSetRangeResponse:
    """Engine.zrange: C path for a plain rank range, else the generic path."""
def engine_zrevrange(
    self: Engine,
    name: KeyT,
    start: int,
    end: int,
    withscores: bool = False,
    score_cast_func: Union[type, Callable[..., Any]] = ...,
) -> ZSetRangeResponse:
    """Engine.zrevrange: C path for a plain rank range, else the generic path."""
def engine_incrby(self: Engine, name: KeyT, amount: int = 1) -> int:
    """Engine.incrby / incr: C path for a canonical int64 string, else the generic path."""


# -- fastrank.Engine's one dispatch path (engine/native/dispatch.pxi) ----------------------

@disjoint_base
class Command:
    """One entry of the command table: Redis's name, the handler, arity
    (n > 0: exactly n words, n < 0: at least -n), flags."""
    name: str
    handler: Callable[[Any, List[bytes]], Any]
    arity: int
    write: bool
    blocking: bool
    whole_argv: bool
    def __init__(self, name: str, handler: Callable[[Any, List[bytes]], Any], arity: int,
                 write: bool, blocking: bool, whole_argv: bool = False) -> None: ...

@disjoint_base
class ResponseCallbacks(Dict[str, Callable[..., Any]]):
    """redis-py's response callbacks, case-insensitive, remembering each
    command name's callback for the dispatch path."""
    def __init__(self, data: Any = ()) -> None: ...
    def attach(self, state: EngineState) -> None:
        """Belong to state: its front doors answer while no callback of theirs changes."""
    def get(self, k: str, default: Any = None) -> Any: ...
    def pop(self, k: str, *default: Any) -> Any: ...
    def setdefault(self, k: str, default: Any = None) -> Any: ...
    def update(self, data: Any = (), **kwargs: Any) -> None: ...  # type: ignore[override]

def dispatch_setup(
    commands: Dict[bytes, Command],
    command_error: Type[Exception],
    parse_error: Callable[[str], Exception],
    unknown_line: Callable[[List[bytes]], str],
    arity_line: Callable[[str], str],
    data_error: Type[Exception],
    response_error: Type[Exception],
    empty_response: str,
    never_decode: str,
    generic: type,
    wrongtype: str,
) -> None:
    """Hand the dispatch path the command table, its error helpers and the
    generic command methods the front doors decline to (once)."""
def pack_args(args: Tuple[Any, ...]) -> List[bytes]:
    """The argument words as redis-py + hiredis put them on the wire."""
def command_for(argv: List[bytes]) -> Command:
    """The Command argv names; CommandError when Redis rejects it unrun."""
def engine_call(self: Engine, argv: List[bytes]) -> Any:
    """Engine.call: one packed command (lock held by the caller); the raw reply."""
def engine_decode(self: Engine, reply: Any) -> Any:
    """Engine.decode: bytes in a raw reply decoded as hiredis does."""
def engine_finish(self: Engine, command_name: Union[str, bytes], reply: Any,
                  options: Dict[str, Any],
                  callbacks: Optional[Mapping[str, Callable[..., Any]]] = None) -> Any:
    """Engine.finish: decode and run redis-py's response callback."""
def engine_run_packed(self: Engine, command_name: Union[str, bytes], argv: List[bytes],
                      options: Dict[str, Any],
                      callbacks: Optional[Mapping[str, Callable[..., Any]]] = None) -> Any:
    """Engine.run_packed: call + finish, errors raised as redis-py raises them."""
def engine_execute_command(self: Engine, *args: Any, **options: Any) -> Any:
    """Engine.execute_command: what redis-py's command methods end in."""
def engine_lookup(self: Any, key: bytes) -> Any:
    """Engine.lookup: the live value at key, or None."""
def engine_run_batch(self: Engine, stack: List[Tuple[Tuple[Any, ...], Dict[str, Any]]],
                     packed: List[Optional[List[bytes]]],
                     callbacks: Optional[Mapping[str, Callable[..., Any]]] = None) -> List[Any]:
    """A pipeline's commands in turn (lock held): replies or ResponseErrors
    (through ``callbacks``, None: the Engine's)."""
def engine_callbacks(self: Engine, stack: List[Tuple[Tuple[Any, ...], Dict[str, Any]]],
                     response: List[Any],
                     callbacks: Optional[Mapping[str, Callable[..., Any]]] = None) -> List[Any]:
    """EXEC's replies through their commands' response callbacks (``callbacks``,
    None: the Engine's)."""
def engine_exec_queue(self: Engine, queue: List[List[bytes]]) -> List[Any]:
    """EXEC's queue in turn (lock held): raw replies or ResponseErrors."""
def forwarding_method(name: str, word: str, fixed: int, rest: bool,
                      generic: Callable[..., Any]) -> Callable[..., Any]:
    """An Engine method sending its positional arguments as command ``word``'s."""
def engine_lookup_type(self: Any, key: bytes, kind: type) -> Any:
    """Engine.lookup_type: the live value at key if of type kind; None; or WRONGTYPE."""
def queueing_method(name: str, word: str, fixed: int, rest: bool,
                    generic: Callable[..., Any]) -> Callable[..., Any]:
    """A Pipeline method queueing its positional arguments as command ``word``'s."""
@disjoint_base
class PipelineCalls:
    """The compiled base of fastrank.engine.pipeline.Pipeline: its state and
    its queue of prepared calls (engine/native/pipeline_calls.pxi)."""
    _engine: Engine
    transaction: bool
    explicit_transaction: bool
    watching: bool
    _dirty: bool
    command_stack: List[Tuple[Tuple[Any, ...], Dict[str, Any]]]
    response_callbacks: Dict[str, Callable[..., Any]]
    scripts: Set[Any]
    _watching: Dict[bytes, bool]
    _event_dispatcher: Any
    def __init__(self, engine: Engine, transaction: bool = True) -> None: ...
    def __len__(self) -> int: ...
    def __bool__(self) -> bool: ...
    def execute_command(self, *args: Any, **options: Any) -> Any:
        """Queue the command (in WATCH's immediate mode, run it now)."""
    def clear_calls(self) -> None:
        """Empty the queue."""
    def packed_calls(self) -> List[Optional[List[bytes]]]:
        """Each queued call's argv (None for one redis-py answers itself)."""
    def execute(self, raise_on_error: bool = True) -> List[Any]:
        """Run the queued commands; their replies."""
def plain_transaction(packed: List[Optional[List[bytes]]]) -> bool:
    """True when MULTI would queue every command of packed as it is."""

# engine/native/zset_commands.pxi: the sorted-set read commands' handlers (registered
# by fastrank.engine.commands.sortedset) and the Engine's front doors for them.
def zset_commands_setup(listpack_cls: type, parse_bound: Callable[[bytes], Any],
                        to_int: Callable[[bytes], int]) -> None:
    """Hand the handlers the Python pieces they defer to."""
def score_range(lo: bytes, hi: bytes) -> Tuple[float, float, bool, bool]:
    """(min, max, min_exclusive, max_exclusive) of a score range, or Redis's error."""
def lex_range(lo: bytes, hi: bytes
              ) -> Optional[Tuple[Optional[bytes], Optional[bytes], bool, bool]]:
    """(min, max, min_exclusive, max_exclusive) of a lex range; None when empty by its ends."""
def zcount(db: Engine, argv: List[bytes]) -> int:
    """ZCOUNT's handler."""
def zlexcount(db: Engine, argv: List[bytes]) -> int:
    """ZLEXCOUNT's handler."""
def zmscore(db: Engine, argv: List[bytes]) -> List[Optional[float]]:
    """ZMSCORE's handler."""
def zset_algebra(op: str, sources: List[Any], weights: List[float], how: bytes) -> SortedSet:
    """The fold of ZUNION / ZINTER / ZDIFF (op "union", "inter", "diff") as a new SortedSet."""
def zrange_generic(db: Engine, args: List[bytes], store: Optional[bytes] = None,
                   rangetype: Optional[str] = None, reverse: Optional[bool] = None) -> Any:
    """The ZRANGE family (with store: the scored items and whether by rank)."""
def zrangebyscore(db: Engine, argv: List[bytes]) -> List[Any]:
    """ZRANGEBYSCORE's handler."""
def zrevrangebyscore(db: Engine, argv: List[bytes]) -> List[Any]:
    """ZREVRANGEBYSCORE's handler."""
def zrangebylex(db: Engine, argv: List[bytes]) -> List[bytes]:
    """ZRANGEBYLEX's handler."""
def zrevrangebylex(db: Engine, argv: List[bytes]) -> List[bytes]:
    """ZREVRANGEBYLEX's handler."""
def engine_zcount(self: Engine, name: KeyT, min: Any, max: Any) -> int:
    """Engine.zcount: redis-py's ZCOUNT through the dispatch path."""
def engine_zlexcount(self: Engine, name: KeyT, min: EncodableT, max: EncodableT) -> int:
    """Engine.zlexcount: redis-py's ZLEXCOUNT through the dispatch path."""
def engine_zmscore(self: Engine, key: KeyT, members: List[Any]) -> List[Optional[float]]:
    """Engine.zmscore: redis-py's ZMSCORE through the dispatch path."""
def engine_zrangebyscore(
    self: Engine, name: KeyT, min: Any, max: Any, start: Optional[int] = None,
    num: Optional[int] = None, withscores: bool = False,
    score_cast_func: Union[type, Callable[..., Any]] = ...,
) -> ZSetRangeResponse:
    """Engine.zrangebyscore: redis-py's ZRANGEBYSCORE through the dispatch path."""
def engine_zrevrangebyscore(
    self: Engine, name: KeyT, max: Any, min: Any, start: Optional[int] = None,
    num: Optional[int] = None, withscores: bool = False,
    score_cast_func: Union[type, Callable[..., Any]] = ...,
) -> ZSetRangeResponse:
    """Engine.zrevrangebyscore: redis-py's ZREVRANGEBYSCORE through the dispatch path."""
def engine_zrangebylex(self: Engine, name: KeyT, min: EncodableT, max: EncodableT,
                       start: Optional[int] = None, num: Optional[int] = None) -> List[Any]:
    """Engine.zrangebylex: redis-py's ZRANGEBYLEX through the dispatch path."""
def engine_zrevrangebylex(self: Engine, name: KeyT, max: EncodableT, min: EncodableT,
                          start: Optional[int] = None, num: Optional[int] = None) -> List[Any]:
    """Engine.zrevrangebylex: redis-py's ZREVRANGEBYLEX through the dispatch path."""
def zcard(db: Engine, argv: List[bytes]) -> int:
    """ZCARD's handler."""

# engine/native/point_reads.pxi: GET, HGET and SISMEMBER's handlers (registered by
# fastrank.engine.commands.strings, .hashes and .sets).
def get_command(db: Any, argv: List[bytes]) -> Optional[bytes]:
    """GET's handler."""
def hget_command(db: Any, argv: List[bytes]) -> Optional[bytes]:
    """HGET's handler."""
def sismember_command(db: Any, argv: List[bytes]) -> int:
    """SISMEMBER's handler."""
def zscore(db: Engine, argv: List[bytes]) -> Optional[float]:
    """ZSCORE's handler."""
def zrank(db: Engine, argv: List[bytes]) -> Optional[int]:
    """ZRANK's handler."""
def zrevrank(db: Engine, argv: List[bytes]) -> Optional[int]:
    """ZREVRANK's handler."""
def first_error(response: List[Any]) -> int:
    """The index of the first ResponseError in a pipeline's replies, or -1."""
def plain_words(words: Union[Tuple[Any, ...], List[Any]]) -> Optional[List[bytes]]:
    """The words packed when each is bytes, str or int, else None."""
def point_reads_setup(keyspace_module: Any) -> None:
    """Hand the TTL family the module whose now_ms is the clock."""
def exists_command(db: Any, argv: List[bytes]) -> int:
    """EXISTS's (and TOUCH's) handler."""
def ttl_generic(db: Any, key: bytes, in_ms: bool, absolute: bool) -> int:
    """TTL, PTTL, EXPIRETIME, PEXPIRETIME: -2, -1, the time left or the deadline."""

# engine/native/engine_fast.pxi
NATIVE_DECLINE: Any
"""What a native script path or a script plan returns to leave the call to Lua."""

# engine/native/zincrby_handler.pxi
def zincrby_setup(python_handler: Any) -> None:
    """Hand over the Python ZINCRBY handler every uncommon case goes to."""
def zincrby_command(db: Any, argv: List[bytes]) -> Any:
    """ZINCRBY's handler (whole argv): the common case in C, the rest in Python."""

# engine/native/script_plans.pxi: straight-line scripts run without Lua.
def script_plans_setup(declined: Any, round_trip: Any, script_error: Any, write_refused: str) -> None:
    """Hand over the declined sentinel and the Python pieces of the rare paths."""
@final
class PlanStep:
    """One redis.call of a plan: argument template, checks, source line."""
    words: Tuple[Any, ...]
    word: bytes
    refusal: Optional[str]
    write: bool
    maybe_status: bool
    line: int
    rank_next: int
    def __init__(self, words: Tuple[Any, ...], word: bytes, refusal: Optional[str], write: bool,
                 maybe_status: bool, line: int, rank_next: int = 0) -> None: ...
@final
class ScriptPlan:
    """A straight-line script's steps."""
    steps: Tuple[PlanStep, ...]
    max_key: int
    max_arg: int
    returns: bool
    def __init__(self, steps: Tuple[PlanStep, ...], max_key: int, max_arg: int, returns: bool) -> None: ...
    def run(self, db: Any, sha: bytes, numkeys: int, words: List[bytes], read_only: bool) -> Any:
        """The script's reply, its error as CommandError, or the declined sentinel."""

# engine/native/script_front_door.pxi
def script_front_door_setup(run_cached: Any, native: Dict[bytes, Any], declined: Any) -> None:
    """Hand over the scripting command's run_cached and the native paths' table."""
def script_object_setup(script_cls: Any, engine_cls: Any, pipeline_cls: Any, is_redis_pipeline: Any,
                        noscript_error: Any) -> None:
    """Hand over what ScriptCall.__call__ tells clients apart with; script_cls is called by vectorcall."""
@disjoint_base
class ScriptCall:
    """The compiled base of fastrank.engine.script.Script: its call."""
    registered_client: Any
    sha: Any
    def __call__(self, keys: Any = None, args: Any = None, client: Any = None) -> Any:
        """EVALSHA, SCRIPT LOAD and EVALSHA again on NOSCRIPT."""
def engine_evalsha(self: Any, sha: Any, numkeys: Any, *keys_and_args: Any) -> Any:
    """Engine.evalsha: a cached script with plain arguments runs without the generic path."""

# engine/native/zadd_handler.pxi
def zadd_setup(python_handler: Any) -> None:
    """Hand over the Python ZADD handler every uncommon case goes to."""
def zadd_command(db: Any, argv: List[bytes]) -> Any:
    """ZADD's handler (whole argv): the common case in C, the rest in Python."""

# engine/native/zadd_front_door.pxi
def engine_zadd(self: Engine, name: KeyT, mapping: Mapping[Any, EncodableT], nx: bool = False,
                xx: bool = False, ch: bool = False, incr: bool = False, gt: bool = False,
                lt: bool = False) -> Union[int, float, None]:
    """Engine.zadd: C path for a few plain pairs on a skip-list zset, else Engine._zadd_general."""

# engine/native/hash_writes.pxi
def hash_writes_setup(hincrby_handler: Any, hset_handler: Any) -> None:
    """Hand over the Python HINCRBY and HSET handlers every uncommon case goes to."""
def hincrby_command(db: Any, argv: List[bytes]) -> Any:
    """HINCRBY key field increment: the new value."""
def hset_command(db: Any, argv: List[bytes]) -> Any:
    """HSET key field value [field value ...]: the number of fields added."""
def engine_hincrby(self: Engine, name: KeyT, key: FieldT, amount: int = 1) -> int:
    """Engine.hincrby: C path for a dict hash and a plain int64 value, else redis-py's method."""
def engine_hset(self: Engine, name: KeyT, key: Optional[FieldT] = None,
                value: Optional[EncodableT] = None,
                mapping: Optional[Mapping[FieldT, EncodableT]] = None,
                items: Optional[Sequence[EncodableT]] = None) -> int:
    """Engine.hset: C path for a field and value and/or a dict of pairs, else redis-py's method."""
