"""Engine HLL and RedisBloom commands without a server: the examples of
docs/compatibility.md (§1, §4, §5, §6) and the vectors in tests/vectors, error texts, state unchanged after errors,
TTLs, TYPE, the redis-py helper objects and the Top-K seed.

The same behaviour is checked reply for reply against real Redis 7.0.15 +
RedisBloom 2.8.2 in tests/compat/test_diff_hll_engine.py and
test_diff_bloom_engine.py.
"""
import warnings

import pytest


import redis  # noqa: E402
from redis.commands.bf.info import CMSInfo, TopKInfo  # noqa: E402

from fastrank import CountMinSketch, TopK, _core  # noqa: E402
from fastrank import _errors as E  # noqa: E402
from fastrank.engine import Engine  # noqa: E402

ABC = bytes.fromhex("48594c4c01000000000000000000008060f38050b1844bfb80425a")
EMPTY = bytes.fromhex("48594c4c0100000000000000000000807fff")


@pytest.fixture
def r():
    return Engine()


def err(r, *args):
    with pytest.raises(redis.ResponseError) as info:
        r.execute_command(*args)
    return str(info.value)


# -- HyperLogLog ------------------------------------------------------------------

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


def test_sparse_max_bytes_attribute():
    r = Engine()
    r.hll_sparse_max_bytes = 100
    r.pfadd("k", *range(200))
    assert len(r.get("k")) == 12304


# -- Count-Min Sketch --------------------------------------------------------------

def test_cms_compat_example(r):
    cms = r.cms()
    assert cms.initbydim("k", 10, 3) is True
    assert cms.incrby("k", ["a", "b"], [1, 2]) == [1, 2]
    assert cms.query("k", "a", "b", "c") == [1, 2, 0]
    info = cms.info("k")
    assert isinstance(info, CMSInfo) and (info.width, info.depth, info.count) == (10, 3, 3)
    assert info["width"] == 10
    assert r.type("k") == b"CMSk-TYPE"
    assert cms.initbyprob("p", 0.01, 0.249999999999) is True
    assert (cms.info("p").width, cms.info("p").depth) == (200, 2)


def test_cms_overflow_is_an_element(r):
    r.cms().initbydim("k", 10, 3)
    reply = r.cms().incrby("k", ["a", "b"], [2**32, 1])
    assert isinstance(reply[0], redis.ResponseError)
    assert str(reply[0]) == _core.CMS_ERR_INCRBY_OVERFLOW
    assert reply[1] == 1
    r.cms().incrby("k", ["a"], [2**63 - 1])
    assert r.cms().info("k").count < 0  # 64-bit total wraps as RedisBloom's


def test_cms_merge_weights_and_errors(r):
    cms = r.cms()
    for k in ("a", "b", "d"):
        cms.initbydim(k, 10, 3)
    cms.initbydim("o", 5, 3)
    cms.incrby("a", ["x", "y"], [5, 7])
    cms.incrby("b", ["x"], [1])
    assert cms.merge("d", 2, ["a", "b"], weights=[2, 3]) is True
    assert cms.query("d", "x", "y") == [13, 14]
    assert cms.info("d").count == 2 * 12 + 3 * 1
    snapshot = r.execute_command("CMS.QUERY", "d", "x", "y")
    r.set("s", "x")
    for args, line in [
        (("nokey", 1, "a"), _core.CMS_ERR_NO_KEY),
        (("s", 1, "a"), E.WRONGTYPE),
        (("d", "x", "a"), _core.CMS_ERR_NUMKEYS),
        (("d", 0, "a"), E.CMS_NUMKEYS_POSITIVE),
        (("d", 2, "a"), _core.CMS_ERR_WRONG_KEYS),
        (("d", 1, "a", "WEIGHTS"), _core.CMS_ERR_WRONG_KEYS_WEIGHTS),
        (("d", 1, "weights"), _core.CMS_ERR_WRONG_KEYS_WEIGHTS),
        (("d", 1, "nokey", "weights", "1.5"), _core.CMS_ERR_WEIGHT),
        (("d", 2, "o", "nokey"), _core.CMS_ERR_SHAPE),
        (("d", 2, "nokey", "o"), _core.CMS_ERR_NO_KEY),
        (("d", 2, "a", "s"), E.WRONGTYPE),
        (("d", 2, "a", "b", "WEIGHTS", 1, -6), _core.CMS_ERR_MERGE_OVERFLOW),
        (("d", 1), E.message(E.WRONG_ARITY, "cms.merge")),
    ]:
        assert err(r, "CMS.MERGE", *args) == line, args
    assert r.execute_command("CMS.QUERY", "d", "x", "y") == snapshot


def test_cms_errors(r):
    r.set("s", "v")
    r.cms().initbydim("c", 10, 3)
    for args, line in [
        (("CMS.INITBYDIM", "s", 1, 1), _core.CMS_ERR_KEY_EXISTS),
        (("CMS.INITBYDIM", "n", 0, 1), _core.CMS_ERR_WIDTH),
        (("CMS.INITBYDIM", "n", "+1", 1), _core.CMS_ERR_WIDTH),
        (("CMS.INITBYDIM", "n", 1, "x"), _core.CMS_ERR_DEPTH),
        (("CMS.INITBYDIM", "n", 1), E.message(E.WRONG_ARITY, "cms.initbydim")),
        (("CMS.INITBYPROB", "n", 1, 0.5), _core.CMS_ERR_ERROR),
        (("CMS.INITBYPROB", "n", 0.1, "nan"), _core.CMS_ERR_PROB),
        (("CMS.INITBYPROB", "n", 0.01, 1e-300), _core.CMS_ERR_INIT),
        (("CMS.INCRBY", "c", "a", 1, "b", "x"), _core.CMS_ERR_PARSE),
        (("CMS.INCRBY", "c", "a", -1, "b", "x"), _core.CMS_ERR_NEGATIVE),
        (("CMS.INCRBY", "c", "a", "-0"), _core.CMS_ERR_PARSE),
        (("CMS.INCRBY", "c", "a", 1, "b"), E.message(E.WRONG_ARITY, "cms.incrby")),
        (("CMS.INCRBY", "nokey", "a", "x"), _core.CMS_ERR_NO_KEY),
        (("CMS.INCRBY", "s", "a", 1), E.WRONGTYPE),
        (("CMS.QUERY", "c"), E.message(E.WRONG_ARITY, "cms.query")),
        (("CMS.QUERY", "s", "a"), E.WRONGTYPE),
        (("CMS.INFO", "nokey"), _core.CMS_ERR_NO_KEY),
        (("CMS.INFO", "c", "x"), E.message(E.WRONG_ARITY, "cms.info")),
    ]:
        assert err(r, *args) == line, args
    assert r.cms().info("c").count == 0
    assert not r.exists("n")


# -- Top-K -------------------------------------------------------------------------

def test_topk_compat_example(r):
    t = r.topk()
    assert t.reserve("t", 3, 1000, 5, 0.9) is True
    assert t.add("t", "a", "b", "c", "d", "a", "a", "b") == [None, None, None, "a", "c", None,
                                                            None]
    assert t.list("t", withcount=True) == ["a", 3, "b", 2, "d", 1]
    assert t.query("t", "a", "d", "zz") == [True, True, False]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert t.count("t", "a", "b", "c", "d", "zz") == [3, 2, 1, 1, 0]
    assert t.incrby("t", ["c", "e"], [10, 0]) == ["d", None]
    assert t.list("t") == ["c", "a", "b"]
    info = t.info("t")
    assert isinstance(info, TopKInfo)
    assert (info.k, info.width, info.depth, info.decay) == (3, 1000, 5, 0.9)
    assert r.type("t") == b"TopK-TYPE"
    assert r.execute_command("TOPK.RESERVE", "d", 2) is True  # callbacks now set
    assert r.execute_command("TOPK.INFO", "d").__dict__ == {"k": 2, "width": 8, "depth": 7,
                                                           "decay": 0.9}


def test_topk_names_cut_at_nul_and_numbers(r):
    t = r.topk()
    t.reserve("t", 2, 50, 4, 1)
    t.add("t", "ab\x00cd", "ab\x00cd", "\x00x", "\x00x", "\x00x")
    assert r.execute_command("TOPK.LIST", "t", "WITHCOUNT") == ["", 3, "ab", 2]
    assert t.query("t", "ab", "ab\x00cd") == [False, True]
    assert t.add("t", "q", "q", "q") == [None, "ab", None]
    t.reserve("n", 3, 10, 3, 1)
    t.add("n", "42", "1.5", "x")
    assert t.list("n") == [42, "x", 1.5]  # as RedisBloom (ties in heap order)


def test_topk_incrby_bad_increment(r):
    t = r.topk()
    t.reserve("t", 3, 1000, 5, 1)
    reply = t.incrby("t", ["a", "b"], [5, 100001])  # last pair: RedisBloom's reply
    assert reply[0] is None and isinstance(reply[1], redis.ResponseError)
    assert str(reply[1]) == _core.TOPK_ERR_INCREMENT
    assert t.list("t", withcount=True) == ["a", 5]
    # elsewhere: a clean error, nothing applied (RedisBloom corrupts its reply)
    assert err(r, "TOPK.INCRBY", "t", "a", "x", "b", 1) == _core.TOPK_ERR_INCREMENT
    assert t.list("t", withcount=True) == ["a", 5]


def test_topk_errors(r):
    r.set("s", "v")
    r.topk().reserve("t", 3, 10, 3, 0.5)
    for args, line in [
        (("TOPK.RESERVE", "s", 1), _core.TOPK_ERR_KEY_EXISTS),
        (("TOPK.RESERVE", "n", 0), _core.TOPK_ERR_K),
        (("TOPK.RESERVE", "n", 1, "y", 0, "w"), _core.TOPK_ERR_WIDTH),
        (("TOPK.RESERVE", "n", 1, 1, 0, 1), _core.TOPK_ERR_DEPTH),
        (("TOPK.RESERVE", "n", 1, 1, 1, "-0.0"), _core.TOPK_ERR_DECAY),
        (("TOPK.RESERVE", "n", 1, 1, 1, 1.5), _core.TOPK_ERR_DECAY),
        (("TOPK.RESERVE", "n", 1, 1), E.message(E.WRONG_ARITY, "topk.reserve")),
        (("TOPK.ADD", "t"), E.message(E.WRONG_ARITY, "topk.add")),
        (("TOPK.ADD", "nokey", "a"), _core.TOPK_ERR_NO_KEY),
        (("TOPK.ADD", "s", "a"), E.WRONGTYPE),
        (("TOPK.INCRBY", "t", "a"), E.message(E.WRONG_ARITY, "topk.incrby")),
        (("TOPK.QUERY", "t"), E.message(E.WRONG_ARITY, "topk.query")),
        (("TOPK.COUNT", "nokey", "a"), _core.TOPK_ERR_NO_KEY),
        (("TOPK.LIST", "nokey", "x"), _core.TOPK_ERR_WITHCOUNT),
        (("TOPK.LIST", "t", "withcounts"), _core.TOPK_ERR_WITHCOUNT),
        (("TOPK.LIST", "t", "WITHCOUNT", "x"), E.message(E.WRONG_ARITY, "topk.list")),
        (("TOPK.INFO", "s"), E.WRONGTYPE),
        (("CMS.INFO", "t"), E.WRONGTYPE),
        (("GET", "t"), E.WRONGTYPE),
        (("PFADD", "t", "a"), E.WRONGTYPE),
    ]:
        assert err(r, *args) == line, args
    assert r.execute_command("TOPK.LIST", "t", "") == []  # any prefix of WITHCOUNT
    assert not r.exists("n")


def test_module_arity_errors_fail_at_exec_in_multi(r):
    with r.pipeline() as p:
        p.execute_command("CMS.INITBYDIM", "k")
        p.set("a", 1)
        out = p.execute(raise_on_error=False)
    assert isinstance(out[0], redis.ResponseError) and out[1] is True


def test_topk_seed_reproduces_decay_runs():
    def run(seed):
        r = Engine()
        r.topk_seed = seed
        r.topk().reserve("t", 5, 4, 3, 0.8)
        r.topk().add("t", *[f"i{(j * 7919) % 97 % (1 + j % 13)}" for j in range(3000)])
        return r.topk().list("t", withcount=True)

    assert run(7) == run(7)


def test_values_are_core_objects(r):
    r.cms().initbydim("c", 4, 2)
    r.topk().reserve("t", 2, 4, 2, 1)
    assert isinstance(r._data[b"c"], CountMinSketch)
    assert isinstance(r._data[b"t"], TopK)
    assert r.rename("c", "c2") is True and r.type("c2") == b"CMSk-TYPE"
