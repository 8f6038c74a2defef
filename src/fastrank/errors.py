"""fastrank's one table of error texts, as named constants, and the
exception classes of its boards.

Every error text fastrank's Python code sends or raises is defined here and
nowhere else: the Redis 7.0 / RedisBloom 2.8 replies of the Engine's command
handlers, the Lua bridge's, fastrank's own refusals, and (in the last section)
the texts the compiled core raises. Modules import them (``from fastrank
import errors as E``); tests compare against them.

A Redis reply constant is the whole error line a server sends (prefix
included, e.g. ``ERR ...``, ``WRONGTYPE ...``). The Engine turns a line into
the exception redis-py would raise for it (``ERR`` is stripped into
``status_code``; other prefixes stay in the message), so tests compare
``str(exc)`` with :func:`message` of these constants.

Texts with a ``%s`` take the lower-case command name (as Redis prints it).
"""


# -- the boards' exception classes (exported by the fastrank package) ----------
# Subclasses of ValueError, which these refusals raised before they had
# classes of their own, so code that catches ValueError keeps working.


class SeasonFrozen(ValueError):
    """A write to a season that was rolled over (its board is frozen)."""


class PointsOutOfRange(ValueError):
    """Points that do not fit the board's bits (``point_bits`` with a
    tie-break, the exact integers of a double without one)."""


class TimeOutOfRange(ValueError):
    """A time outside the span a board's tie-break holds: before its ``epoch``,
    or ``2**time_bits`` ticks or more after it."""


class PeriodClosed(ValueError):
    """A write to a periodic board dated in a period that its retention has
    already dropped: the board would not keep it."""


class SnapshotExists(ValueError):
    """A ``Leaderboard.snapshot(label)`` with a label the season's snapshots
    hold already (snapshots are frozen: drop it first to take it again)."""


class UnknownSnapshot(ValueError):
    """A read of a snapshot label the board's current season does not hold."""


class BoardConfigMismatch(ValueError):
    """An option given to a board (or counter) that differs from the one it
    was made with and stores in its descriptor: ``board`` (its name),
    ``option``, ``stored`` and ``given`` name them."""

    def __init__(self, what: str, name: str, option: str, stored: object, given: object) -> None:
        self.board = name
        self.option = option
        self.stored = stored
        self.given = given
        super().__init__(f"{what} {name!r} was made with {option}={stored!r}, not {option}={given!r}: "
                         f"open it by name alone to use its stored options, or give another name")


class PlayerBanned(ValueError):
    """A submit for a player the score service's board has banned
    (``ScoreService.ban``): refused before anything is recorded."""


for _cls in (SeasonFrozen, PointsOutOfRange, TimeOutOfRange, PeriodClosed, BoardConfigMismatch, PlayerBanned):
    _cls.__module__ = "fastrank"  # shown and pickled as the package exports them


WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
SYNTAX = "ERR syntax error"
WRONG_ARITY = "ERR wrong number of arguments for '%s' command"
UNKNOWN_COMMAND = "ERR unknown command '%s', with args beginning with: %s"
NOT_INTEGER = "ERR value is not an integer or out of range"
NOT_FLOAT = "ERR value is not a valid float"
OVERFLOW = "ERR increment or decrement would overflow"
DECR_OVERFLOW = "ERR decrement would overflow"
NAN_OR_INF = "ERR increment would produce NaN or Infinity"
HASH_NOT_INTEGER = "ERR hash value is not an integer"
HASH_NOT_FLOAT = "ERR hash value is not a float"
NO_SUCH_KEY = "ERR no such key"
INVALID_EXPIRE = "ERR invalid expire time in '%s' command"
EXPIRE_NX_AND_OTHERS = "ERR NX and XX, GT or LT options at the same time are not compatible"
EXPIRE_GT_AND_LT = "ERR GT and LT options at the same time are not compatible"
STRING_TOO_LONG = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
OFFSET_OUT_OF_RANGE = "ERR offset is out of range"
INVALID_CURSOR = "ERR invalid cursor"
UNKNOWN_SUBCOMMAND = "ERR unknown subcommand '%s'. Try %s HELP."
OUT_OF_RANGE_POSITIVE = "ERR value is out of range, must be positive"
TIMEOUT_NOT_FLOAT = "ERR timeout is not a float or out of range"
TIMEOUT_NEGATIVE = "ERR timeout is negative"
VALUE_OUT_OF_RANGE = "ERR value is out of range"
WITHOUT_MULTI = "ERR %s without MULTI"
WATCH_INSIDE_MULTI = "ERR WATCH inside MULTI is not allowed"
MULTI_NESTED = "ERR MULTI calls can not be nested"
EXEC_ABORTED = "EXECABORT Transaction discarded because of previous errors."
EXEC_REJECTED = "EXECABORT Transaction discarded because of: %s"
# fastrank's own: MULTI outside a transaction pipeline (the Engine keeps no
# per-connection MULTI state to answer QUEUED with).
MULTI_UNSUPPORTED = ("ERR fastrank.Engine runs MULTI only as a transaction pipeline "
                     "(pipeline(transaction=True) or pipeline().multi())")
UNSUPPORTED_OPTION = "ERR Unsupported option %s"  # EXPIRE family
# COPY and OBJECT (db.c, object.c)
SAME_OBJECT = "ERR source and destination objects are the same"
DB_OUT_OF_RANGE = "ERR DB index is out of range"
INT_RANGE = "ERR value is out of range, value must between -2147483648 and 2147483647"  # a C int
MODULE_COPY_UNSUPPORTED = "ERR not supported for this module key"  # COPY of a RedisBloom sketch
OBJECT_FREQ_NO_LFU = ("ERR An LFU maxmemory policy is not selected, access frequency not "
                      "tracked. Please note that when switching between policies at runtime "
                      "LRU and LFU data will take some time to adjust.")
HASH_NAN_OR_INF = "ERR value is NaN or Infinity"  # HINCRBYFLOAT's increment

# -- sorted sets -----------------------------------------------------------
ZADD_XX_NX = "ERR XX and NX options at the same time are not compatible"
ZADD_GT_LT_NX = "ERR GT, LT, and/or NX options at the same time are not compatible"
ZADD_INCR_PAIRS = "ERR INCR option supports a single increment-element pair"
SCORE_NAN = "ERR resulting score is not a number (NaN)"
MIN_MAX_NOT_FLOAT = "ERR min or max is not a float"
MIN_MAX_NOT_LEX = "ERR min or max not valid string range item"
WEIGHT_NOT_FLOAT = "ERR weight value is not a float"
AT_LEAST_ONE_KEY = "ERR at least 1 input key is needed for '%s' command"
NUMKEYS_POSITIVE = "ERR numkeys should be greater than 0"
COUNT_POSITIVE = "ERR count should be greater than 0"
LIMIT_POSITIVE = "ERR LIMIT can't be negative"
ZRANGE_LIMIT = (
    "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"
)
ZRANGE_WITHSCORES_BYLEX = (
    "ERR syntax error, WITHSCORES not supported in combination with BYLEX"
)
ZRANDMEMBER_COUNT_RANGE = (
    "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
)
#: the Engine's own cap (Engine.random_reply_limit): count, entries, limit
RANDOM_REPLY_LIMIT = (
    "ERR count %d asks for %d entries, more than the Engine's random_reply_limit (%d): "
    "set Engine.random_reply_limit higher, or to None for no limit"
)

# -- lists, LCS, SORT --------------------------------------------------------
INDEX_OUT_OF_RANGE = "ERR index out of range"
LPOS_RANK_ZERO = ("ERR RANK can't be zero: use 1 to start from the first match, 2 from the "
                  "second ... or use negative to start from the end of the list")
LPOS_COUNT_NEGATIVE = "ERR COUNT can't be negative"
LPOS_MAXLEN_NEGATIVE = "ERR MAXLEN can't be negative"
LCS_NOT_STRINGS = "ERR The specified keys must contain string values"
LCS_IDX_AND_LEN = "ERR If you want both the length and indexes, please just use IDX."
SORT_NOT_DOUBLE = "ERR One or more scores can't be converted into double"


def message(line: str, *fmt: str) -> str:
    """``str(exc)`` redis-py gives for error ``line`` (ERR removed, others kept)."""
    if fmt:
        line = line % fmt
    return line[4:] if line.startswith("ERR ") else line

# -- fastrank's leaderboard scripts (fastrank/leaderboard/scripts/*.lua): the first word
# of the error lines they send; Leaderboard turns them into ValueError -------
BOARD_RANGE_PREFIX = "FASTRANK_RANGE"
BOARD_FROZEN_PREFIX = "FASTRANK_FROZEN"
BOARD_RANGE = "FASTRANK_RANGE the new points do not fit the board: magnitude above %s"
BOARD_FROZEN = "FASTRANK_FROZEN this season is frozen (rolled over); write to the current season"
BANDS_MOVED_PREFIX = "FASTRANK_MOVED"
BANDS_BUSY_PREFIX = "FASTRANK_BUSY"
BANDS_MOVED = "FASTRANK_MOVED the bands moved to another layout generation; read the descriptor again"
BANDS_BUSY = "FASTRANK_BUSY the bands are being rebalanced; writes wait until the rebalance ends"

# -- HyperLogLog (hyperloglog.c) ----------------------------------------------
HLL_NOT_VALID = "WRONGTYPE Key is not a valid HyperLogLog string value."
HLL_CORRUPTED = "INVALIDOBJ Corrupted HLL object detected"

# -- RedisBloom 2.8 (module errors carry no ERR prefix). The CMS/TopK texts
# the compiled sketches raise themselves are in the compiled core's section,
# the last one of this file ---------------------------------------------------
CMS_NUMKEYS_POSITIVE = "CMS: Number of keys must be positive"

# -- scripting (EVAL, EVALSHA, SCRIPT; commands/scripting.py) -------------------
NUMKEYS_TOO_BIG = "ERR Number of keys can't be greater than number of args"
NUMKEYS_NEGATIVE = "ERR Number of keys can't be negative"
NOSCRIPT = "NOSCRIPT No matching script. Please use EVAL."
SCRIPT_COMPILE = "ERR Error compiling script (new function): %s"
SCRIPT_ERROR = "%s script: %s, on %s:%s."
SCRIPT_UNKNOWN_SUBCOMMAND = "ERR unknown subcommand '%s'. Try SCRIPT HELP."
SCRIPT_FLUSH_MODE = "ERR SCRIPT FLUSH only support SYNC|ASYNC option"
SCRIPT_NOT_BUSY = "NOTBUSY No scripts in execution right now."
SHEBANG_ENGINE = "ERR Unexpected engine in script shebang: %s"
SHEBANG_OPTION = "ERR Unknown lua shebang option: %s"
SHEBANG_FLAG = "ERR Unexpected flag in script shebang: %s"
SCRIPT_WRITE_FLAG_RO = "ERR Can not execute a script with write flag using *_ro command."
# The error tables redis.call raises (redis.pcall returns), as Redis words them.
LUA_NO_ARGUMENTS = "ERR Please specify at least one argument for this redis lib call"
LUA_BAD_ARGUMENTS = "ERR Lua redis lib command arguments must be strings or integers"
LUA_UNKNOWN_COMMAND = "ERR Unknown Redis command called from script"
LUA_WRONG_ARITY = "ERR Wrong number of args calling Redis command from script"
LUA_NOT_ALLOWED = "ERR This Redis command is not allowed from script"
LUA_WRITE_IN_READ_ONLY = "ERR Write commands are not allowed from read-only scripts."
LUA_SHA1HEX_ARGUMENTS = "ERR wrong number of arguments"
LUA_SETRESP_ARGUMENTS = "ERR redis.setresp() requires one argument."
LUA_SETRESP_VERSION = "ERR RESP version must be 2 or 3."
LUA_LOG_ARGUMENTS = "ERR redis.log() requires two arguments or more."
LUA_LOG_LEVEL_TYPE = "ERR First argument must be a number (log level)."
LUA_LOG_LEVEL = "ERR Invalid debug level."
LUA_SET_REPL_ARGUMENTS = "ERR redis.set_repl() requires one argument."
LUA_SET_REPL_FLAGS = "ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE."
# fastrank's own texts (Redis has no equivalent reply):
# error() with a table that has no string 'err' field (Redis 7.0 crashes on it);
SCRIPT_ERROR_OBJECT = "ERR Error running script: error object is not a string or an {err=...} table"
# the loop guard stopped a script that ran longer than Engine.script_time_limit.
SCRIPT_TIMEOUT = ("ERR Script killed: it ran longer than the engine's script time limit "
                  "(%d ms); writes made before it stay")
# the script's Lua runtime reached Engine.script_memory_limit.
SCRIPT_MEMORY = ("ERR Script killed: it needed more memory than the engine's script memory "
                 "limit (%d bytes); writes made before it stay")
# The errors of the Lua libraries a script can use (struct, cmsgpack,
# math.random), as their C code words them; Lua puts the script position
# (``user_script:LINE:``) in front. LUA_BAD_ARGUMENT takes the argument number,
# the function name and one of the details below.
LUA_BAD_ARGUMENT = "bad argument #%d to '%s' (%s)"
LUA_EXPECTED = "%s expected, got %s"
LUA_INTERVAL_EMPTY = "interval is empty"
LUA_WRONG_ARGUMENT_COUNT = "wrong number of arguments"
LUA_STRUCT_STRING_TOO_SHORT = "string too short"
LUA_STRUCT_C0_NEEDS_SIZE = "format 'c0' needs a previous size"
LUA_STRUCT_DATA_TOO_SHORT = "data string too short"
LUA_STRUCT_UNFINISHED_STRING = "unfinished string in data"
LUA_STRUCT_NO_FIXED_SIZE = "option '%s' has no fixed size"
LUA_STRUCT_ALIGNMENT = "alignment %d is not a power of 2"
LUA_STRUCT_FORMAT_OPTION = "invalid format option '%s'"
LUA_STRUCT_INT_SIZE = "integral size %d is larger than limit of %d"
LUA_STRUCT_SIZE_OVERFLOW = "integral size overflow"
LUA_STRUCT_OFFSET = "offset must be 1 or greater"
LUA_MSGPACK_NO_INPUT = "MessagePack pack needs input."
LUA_MSGPACK_NEGATIVE = "Invalid request to unpack with offset of %d and limit of %d."
LUA_MSGPACK_OFFSET_PAST_END = "Start offset %d greater than input length %d."
LUA_STACK_OVERFLOW = "stack overflow (%s)"
LUA_MSGPACK_MISSING_BYTES = "Missing bytes in input."
LUA_MSGPACK_BAD_DATA = "Bad data format in input."
# fastrank's own: a script reached for a Python attribute through the bridge.
LUA_NO_ATTRIBUTE_ACCESS = "attribute access is not available to scripts"
# -- redis-py's client-side texts (raised before anything reaches a server) ----
PACK_ARGUMENT = "A tuple item must be str, int, float or bytes."  # DataError of argument packing
WATCH_AFTER_MULTI = "Cannot issue a WATCH after a MULTI"  # RedisError of a pipeline
# -- fastrank's own (no Redis counterpart) -------------------------------------
ENGINE_NOT_PICKLABLE = (
    "a fastrank.Engine cannot be pickled or copied: it holds locks, blocked "
    "clients and WATCH state. Save its data instead: engine.save(path) writes "
    "a snapshot that Engine().load(path) reads back (the core values "
    "SortedSet, HyperLogLog, CountMinSketch and TopK also pickle on their own)"
)

# -- the compiled core (fastrank._core, src/fastrank/structures/*.pxi, engine/native/*.pxi) ---------------
# The texts the core's classes raise with; the .pxi files import them from
# here. fastrank._core re-exports the CMS_ERR_* / TOPK_ERR_* names (and the two
# HyperLogLog texts above as HLL_NOT_VALID_TEXT / HLL_CORRUPTED_TEXT).
#
# RedisBloom 2.8.2's texts, exactly as the server sends them (module errors
# carry no ERR prefix; see docs/compatibility.md §4 and §5). The core raises
# with them where the same condition exists, so the Engine can re-raise them
# as redis.exceptions.ResponseError.
CMS_ERR_KEY_EXISTS = "CMS: key already exists"
CMS_ERR_NO_KEY = "CMS: key does not exist"
CMS_ERR_WIDTH = "CMS: invalid width"                   # INITBYDIM, not an integer >= 1
CMS_ERR_DEPTH = "CMS: invalid depth"
CMS_ERR_ERROR = "CMS: invalid overestimation value"    # INITBYPROB error not in (0, 1)
CMS_ERR_PROB = "CMS: invalid prob value"               # INITBYPROB probability not in (0, 1)
CMS_ERR_INIT = "CMS: invalid init arguments"           # width * depth past 2^63 - 1, depth 0 ...
CMS_ERR_NO_MEMORY = "CMS: Insufficient memory to create the key"  # accepted sizes, no memory
CMS_ERR_PARSE = "CMS: Cannot parse number"             # INCRBY increment not an integer (or >= 2^63)
CMS_ERR_NEGATIVE = "CMS: Number cannot be negative"
CMS_ERR_INCRBY_OVERFLOW = "CMS: INCRBY overflow"       # an error ELEMENT of the INCRBY reply
CMS_ERR_NUMKEYS = "CMS: invalid numkeys"
CMS_ERR_WRONG_KEYS = "CMS: wrong number of keys"
CMS_ERR_WRONG_KEYS_WEIGHTS = "CMS: wrong number of keys/weights"
CMS_ERR_WEIGHT = "CMS: invalid weight value"
CMS_ERR_SHAPE = "CMS: width/depth is not equal"
CMS_ERR_MERGE_OVERFLOW = "CMS: MERGE overflow"
TOPK_ERR_KEY_EXISTS = "TopK: key already exists"
TOPK_ERR_NO_KEY = "TopK: key does not exist"
TOPK_ERR_K = "TopK: invalid k"
TOPK_ERR_WIDTH = "TopK: invalid width"
TOPK_ERR_DEPTH = "TopK: invalid depth"
TOPK_ERR_DECAY = "TopK: invalid decay value. must be '<= 1' & '> 0'"
# The whole line (RedisBloom sends this one with an ERR prefix).
TOPK_ERR_NO_MEMORY = "ERR Insufficient memory to create topk data structure"
# 28 spaces inside, as sent (RedisBloom splits a C string literal there).
TOPK_ERR_INCREMENT = ("TopK: increment must be an integer greater or equal to 0"
                      + " " * 28 + "and smaller or equal to 100,000")
TOPK_ERR_WITHCOUNT = "WITHCOUNT keyword expected"

# fastrank's own texts for the core's Python API (no Redis counterpart).
# A sketch used before __init__ gave it its counters:
CMS_ERR_NOT_READY = ("CountMinSketch is not initialised: call CountMinSketch.__init__ "
                     "(width, depth), or make it with from_error() / from_bytes()")
TOPK_ERR_NOT_READY = ("TopK is not initialised: call TopK.__init__(k, width, depth, decay), "
                      "or make it with from_bytes()")
CMS_ALREADY_READY = "CountMinSketch is already initialised"
TOPK_ALREADY_READY = "TopK is already initialised"
# CMS / TopK items and batches (%s: a type name):
SKETCH_ITEM_TYPE = "an item must be bytes, str, int or float, not %s"
SKETCH_ITEMS_SINGLE = "items must be a sequence of items, not a single item"
SKETCH_ITEMS_NDIM = "a numpy array of items must be one-dimensional"
SKETCH_INCREMENTS_NDIM = "increments must be one-dimensional"
SKETCH_INCREMENTS_LENGTH = "items and increments differ in length"
SKETCH_ARRAY_RESIZED = "the items array was resized during the call"
CMS_MERGE_NO_SOURCE = "merge needs at least one source"
CMS_MERGE_SOURCE_TYPE = "merge sources must be CountMinSketch objects"
CMS_NOT_SERIALIZED = "not a serialized fastrank CountMinSketch (version 1)"
TOPK_MERGE_TYPE = "can only merge a TopK"
TOPK_MERGE_SHAPE = "TopK merge needs the same k, width, depth and decay: %s != %s"
TOPK_NOT_SERIALIZED = "not a serialized fastrank TopK (version 1)"
TOPK_HEAP_BROKEN = "TopK heap invariant broken: %s"
TOPK_SEED_TYPE = "seed must be an int or None"
# SortedSet (%s: a type name, a dtype, or what the numbers are: "scores"...).
# ZSET_MEMBER_TYPE is redis-py's own wording for an argument it cannot encode.
ZSET_MEMBER_TYPE = "Invalid input of type: '%s'. Convert to a bytes, string, int or float first."
ZSET_MEMBERS_NDIM = "members must be one-dimensional"
ZSET_MEMBERS_DTYPE = "members array must hold integers, not %s"
ZSET_MEMBERS_SINGLE = "members must be a sequence of members or a numpy integer array, not a single %s"
ZSET_NUMBERS_TYPE = "%s must be real numbers, not %s"
ZSET_NUMBERS_NDIM = "%s must be one-dimensional"
ZSET_NUMBERS_SINGLE = "%s must be a sequence of numbers, not a single %s"
ZSET_NUMBERS_LENGTH = "%d members but %d %s"
ZSET_XX_AND_NX = "XX and NX options at the same time are not compatible"
ZSET_GT_LT_AND_NX = "GT, LT, and/or NX options at the same time are not compatible"
ZSET_RANGE_NAN = "min or max is not a number (NaN)"
ZSET_SCORE_NAN = "score is not a number (NaN)"
ZSET_INCREMENT_NAN = "increment is not a number (NaN)"
ZSET_RESULT_NAN = "resulting score is not a number (NaN)"
ZSET_UNDO_OUT_OF_MEMORY = ("out of memory, and again while undoing: the set is whole, but some "
                           "of the batch's pairs stay applied")
ZSET_COPY_CLASS = "cls must be SortedSet or a subclass of it"
ZSET_COUNT_NEGATIVE = "count must be non-negative"
ZSET_CHANGED_DURING_ITERATION = "SortedSet changed during iteration"
# HyperLogLog (%s: a type name or a dtype; %d: the C core's return code):
HLL_UNEXPECTED = "unexpected HyperLogLog error %d"
HLL_SPARSE_MAX_NEGATIVE = "sparse_max_bytes must be >= 0"
HLL_MEMBER_TYPE = "a HyperLogLog member must be bytes, str, int or float, not %s"
HLL_ARRAY_NDIM = "add_many takes a 1-D array"
HLL_ARRAY_DTYPE = "add_many takes integer, bytes ('S'), str or object arrays, not %s"
HLL_MEMBERS_SINGLE = "add_many takes a sequence of members, not a single %s"
HLL_NOT_STRING = "not a string value: %s"
HLL_INT_ARRAY = "int64 or uint64 array expected"

# Packed columns (fastrank.service.columns.ZaddPacked, fastrank.service._totals)
PACKED_ROW_RANGE = "packed row out of range"
PACKED_LENGTHS = "%d rows but %d scores"
SCORE_SCAN_ORDER = "the ranking index gives a tie-break board's order only when its tick is mirrored"
SCORE_SCAN_TIME_BITS = "time_bits must be 1..52, not %d"
SCORE_SCAN_BATCH = "batch must be at least 1, not %d"
SCORE_SCAN_CLOSED = "the scan is closed or already reading"
SCORE_SCAN_BUSY = "the scan is reading a chunk: close it after"
