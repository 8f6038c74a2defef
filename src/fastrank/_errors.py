"""Every Redis error text the Engine can send, as named constants.

Each constant is the whole error line a Redis 7.0 server sends (prefix
included, e.g. ``ERR ...``, ``WRONGTYPE ...``). The Engine turns a line into
the exception redis-py would raise for it (``ERR`` is stripped into
``status_code``; other prefixes stay in the message), so tests compare
``str(exc)`` with :func:`message` of these constants.

Texts with a ``%s`` take the lower-case command name (as Redis prints it).
"""

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
TIMEOUT_OUT_OF_RANGE = "ERR timeout is out of range"
VALUE_OUT_OF_RANGE = "ERR value is out of range"
WITHOUT_MULTI = "ERR %s without MULTI"
WATCH_INSIDE_MULTI = "ERR WATCH inside MULTI is not allowed"
MULTI_NESTED = "ERR MULTI calls can not be nested"
EXEC_ABORTED = "EXECABORT Transaction discarded because of previous errors."
EXEC_REJECTED = "EXECABORT Transaction discarded because of: %s"

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


def message(line: str, *fmt: str) -> str:
    """``str(exc)`` redis-py gives for error ``line`` (ERR removed, others kept)."""
    if fmt:
        line = line % fmt
    return line[4:] if line.startswith("ERR ") else line

# -- HyperLogLog (hyperloglog.c) ----------------------------------------------
HLL_NOT_VALID = "WRONGTYPE Key is not a valid HyperLogLog string value."
HLL_CORRUPTED = "INVALIDOBJ Corrupted HLL object detected"

# -- RedisBloom 2.8 (module errors carry no ERR prefix; the other CMS/TopK
# texts are the CMS_ERR_* / TOPK_ERR_* constants of fastrank._core) ----------
CMS_NUMKEYS_POSITIVE = "CMS: Number of keys must be positive"

# -- fastrank's own (no Redis counterpart) -------------------------------------
ENGINE_NOT_PICKLABLE = (
    "a fastrank.Engine cannot be pickled or copied: it holds locks, blocked "
    "clients and WATCH state. Save its data instead: walk engine.scan_iter() and "
    "read each key with the commands of its type (or pickle the values "
    "themselves: SortedSet, HyperLogLog, CountMinSketch and TopK pickle on their own)"
)
