"""HyperLogLog commands (commands/hyperloglog.py): PFADD, PFCOUNT and PFMERGE
give Redis's exact string bytes (docs/compatibility.md §1 and the vectors in
tests/vectors), their error texts leave the values unchanged, TTLs are kept.

Each test taking ``r`` runs on the Engine and on the real server (tests/conftest.py);
tests/compat/commands/test_diff_hyperloglog.py compares random streams reply for reply.
"""
from fastrank import errors as E

from .replies import error_line as err

ABC = bytes.fromhex("48594c4c01000000000000000000008060f38050b1844bfb80425a")
EMPTY = bytes.fromhex("48594c4c0100000000000000000000807fff")


def test_pfadd_pfcount_bytes_as_redis(r):
    assert r.pfadd("k", "a", "b", "c") == 1
    assert r.get("k") == ABC
    assert r.pfadd("k", "a") == 0
    assert r.pfcount("k") == 3
    assert r.get("k")[8:16] == bytes.fromhex("0300000000000000")
    assert r.type("k") == b"string"
    assert r.strlen("k") == len(ABC)
    assert r.pfadd("k", "d") == 1
    assert r.get("k")[8:16] == bytes.fromhex("0300000000000080")  # stale, low bytes kept


def test_pfadd_without_elements_creates(r):
    assert r.execute_command("PFADD", "e") == 1
    assert r.get("e") == EMPTY
    assert r.execute_command("PFADD", "e") == 0
    assert r.pfcount("e") == 0
    assert r.pfcount("missing") == 0


def test_cached_count_is_trusted(r):
    forged = ABC[:8] + (12345).to_bytes(8, "little") + ABC[16:]
    assert r.set("f", forged) is True
    assert r.pfcount("f") == 12345
    assert r.get("f") == forged


def test_pfcount_union_and_pfmerge(r):
    r.pfadd("s1", "a", "b")
    r.pfadd("s2", "c")
    assert r.pfcount("s1", "s2", "nokey") == 3
    assert r.get("s1")[15] & 0x80  # no cache written by a union count
    assert r.pfmerge("m", "s1", "s2") is True
    assert r.get("m") == ABC
    r.pfadd("dst", "zzz")
    r.pfmerge("dst", "s1")
    assert r.pfcount("dst") == 3
    assert r.execute_command("PFMERGE", "alone") is True
    assert r.get("alone") == EMPTY


def test_hll_keeps_ttl(r):
    r.pfadd("k", "a")
    r.expire("k", 100)
    r.pfadd("k", "b")
    r.pfcount("k")
    r.pfmerge("k", "k")
    assert r.ttl("k") > 0
    r.pfmerge("other", "k")
    assert r.ttl("other") == -1


def test_hll_errors(r):
    r.set("s", "not an hll at all")
    r.zadd("z", {"a": 1})
    r.pfadd("h", "x")
    before = r.get("h")
    assert err(r, "PFADD", "s", "a") == E.HLL_NOT_VALID
    assert err(r, "PFCOUNT", "s") == E.HLL_NOT_VALID
    assert err(r, "PFADD", "z", "a") == E.WRONGTYPE
    assert err(r, "PFCOUNT", "h", "z") == E.WRONGTYPE
    assert err(r, "PFCOUNT", "h", "s", "z") == E.HLL_NOT_VALID
    assert err(r, "PFCOUNT", "z", "s") == E.WRONGTYPE
    assert err(r, "PFMERGE", "s", "h") == E.HLL_NOT_VALID
    assert err(r, "PFMERGE", "h", "z") == E.WRONGTYPE
    assert err(r, "PFADD") == E.message(E.WRONG_ARITY, "pfadd")
    assert err(r, "PFCOUNT") == E.message(E.WRONG_ARITY, "pfcount")
    assert err(r, "PFMERGE") == E.message(E.WRONG_ARITY, "pfmerge")
    assert r.get("h") == before and r.get("s") == b"not an hll at all"


def test_appended_hll_is_corrupt(r):
    r.pfadd("h", "a", "b")
    r.append("h", b"\x7f\xff")  # extra XZERO past 16384 registers
    assert err(r, "PFCOUNT", "h") == E.HLL_CORRUPTED
    r.pfadd("d", *range(3000))  # dense
    r.append("d", b"x")
    assert err(r, "PFCOUNT", "d") == E.HLL_NOT_VALID
    r.setrange("h", 0, b"XYLL")
    assert err(r, "PFADD", "h", "q") == E.HLL_NOT_VALID


def test_sparse_max_bytes_attribute(engine):
    engine.hll_sparse_max_bytes = 100
    engine.pfadd("k", *range(200))
    assert len(engine.get("k")) == 12304


def test_engine_pfadd_is_unchanged(r):
    assert r.pfadd("h", "hello") == 1
    assert r.pfcount("h") == 1
