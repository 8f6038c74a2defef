"""RedisBloom's CMS.* and TOPK.* commands (commands/bloom.py): the examples of
docs/compatibility.md (§4, §5, §6), error texts, state unchanged after errors,
TYPE, the redis-py helper objects and the Top-K seed.

Each test taking ``r`` runs on the Engine and on the real server with the
RedisBloom module (tests/conftest.py); those taking ``engine`` check what only
the Engine has (its core objects, its seed, its answer where RedisBloom
corrupts its reply). tests/compat/commands/test_diff_bloom.py compares random
streams reply for reply.
"""
import warnings

import pytest
import redis
from redis.commands.bf.info import CMSInfo, TopKInfo

from fastrank import CountMinSketch, TopK, _core
from fastrank import errors as E
from fastrank.engine import Engine

from .replies import error_line as err

pytestmark = pytest.mark.redisbloom


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


def test_topk_incrby_bad_increment(engine):
    t = engine.topk()
    t.reserve("t", 3, 1000, 5, 1)
    reply = t.incrby("t", ["a", "b"], [5, 100001])  # last pair: RedisBloom's reply
    assert reply[0] is None and isinstance(reply[1], redis.ResponseError)
    assert str(reply[1]) == _core.TOPK_ERR_INCREMENT
    assert t.list("t", withcount=True) == ["a", 5]
    # elsewhere: a clean error, nothing applied (RedisBloom corrupts its reply)
    assert err(engine, "TOPK.INCRBY", "t", "a", "x", "b", 1) == _core.TOPK_ERR_INCREMENT
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
        engine = Engine()
        engine.topk_seed = seed
        engine.topk().reserve("t", 5, 4, 3, 0.8)
        engine.topk().add("t", *[f"i{(j * 7919) % 97 % (1 + j % 13)}" for j in range(3000)])
        return engine.topk().list("t", withcount=True)

    assert run(7) == run(7)


def test_values_are_core_objects(engine):
    engine.cms().initbydim("c", 4, 2)
    engine.topk().reserve("t", 2, 4, 2, 1)
    assert isinstance(engine._data[b"c"], CountMinSketch)
    assert isinstance(engine._data[b"t"], TopK)
    assert engine.rename("c", "c2") is True and engine.type("c2") == b"CMSk-TYPE"
