"""HyperLogLog against the real Redis 7.0: same bytes, same counts, same errors.

A small model keyspace (``Ours``) runs PFADD / PFCOUNT / PFMERGE / GET / SET
through fastrank's raw-bytes HLL functions; every step is sent to the real
server too and the replies (or error texts) and the stored bytes must be
identical.  Streams are random but seeded (``seed`` fixture: --seed N or
FASTRANK_SEED reproduce a failure); FASTRANK_STEPS_SCALE scales them.
"""
from __future__ import annotations

import os
import random
from typing import Dict, List, Optional

import pytest
import redis

from fastrank import HyperLogLog
from fastrank._core import (
    CorruptHyperLogLog,
    NotAHyperLogLog,
    pfadd_bytes,
    pfcount_bytes,
    pfcount_union_bytes,
    pfmerge_bytes,
)

pytestmark = pytest.mark.redis
SCALE = float(os.environ.get("FASTRANK_STEPS_SCALE", "1"))


class Ours:
    """A keyspace of string values with Redis's PF* semantics, via fastrank."""

    def __init__(self, sparse_max: int = 3000) -> None:
        self.db: Dict[str, bytes] = {}
        self.sparse_max = sparse_max

    def pfadd(self, key, *members):
        try:
            self.db[key], reply = pfadd_bytes(self.db.get(key), list(members), self.sparse_max)
        except CorruptHyperLogLog as e:
            if e.value is not None:
                self.db[key] = e.value
            raise
        return reply

    def pfcount(self, *keys):
        if len(keys) == 1:
            count, new = pfcount_bytes(self.db.get(keys[0]))
            if new is not None:
                self.db[keys[0]] = new
            return count
        return pfcount_union_bytes([self.db.get(k) for k in keys])

    def pfmerge(self, dest, *sources):
        self.db[dest] = pfmerge_bytes(self.db.get(dest), [self.db.get(s) for s in sources], self.sparse_max)
        return True

    def get(self, key):
        return self.db.get(key)

    def set(self, key, value):
        self.db[key] = bytes(value)
        return True


def call(side, name, *args):
    """('ok', reply) or ('err', message) for one command on either side."""
    try:
        return ("ok", getattr(side, name)(*args))
    except (redis.ResponseError, NotAHyperLogLog, CorruptHyperLogLog) as e:
        return ("err", str(e))


def both(ours, server, name, *args):
    a, b = call(ours, name, *args), call(server, name, *args)
    assert a == b, (name, args[:3], a, b)
    return a


def same_keys(ours, server, keys):
    for k in keys:
        assert ours.get(k) == server.get(k), k


@pytest.fixture
def server(redis_client):
    """The real server; its hll-sparse-max-bytes is set back to the default after the test."""
    yield redis_client
    redis_client.config_set("hll-sparse-max-bytes", 3000)


def random_members(rng: random.Random, n: int) -> List[object]:
    shape = rng.choice(["str", "int", "bytes", "mixed", "long"])
    out: List[object] = []
    for _ in range(n):
        s = shape if shape != "mixed" else rng.choice(["str", "int", "bytes", "long"])
        if s == "str":
            out.append("u%d" % rng.randrange(10**6))
        elif s == "int":
            out.append(rng.randrange(-10**12, 10**12))
        elif s == "bytes":
            out.append(bytes(rng.randrange(256) for _ in range(rng.randrange(0, 12))))
        else:
            out.append("x" * rng.randrange(8, 40) + str(rng.random()))
    return out


def test_pfadd_streams_bytes_after_every_step(server, seed):
    rng = random.Random(seed)
    sparse_max = rng.choice([3000, 3000, 200, 1000, 6000])
    server.config_set("hll-sparse-max-bytes", sparse_max)
    ours = Ours(sparse_max)
    keys = ["h1", "h2", "h3"]
    for step in range(int(250 * SCALE)):
        key = rng.choice(keys)
        n = rng.choice([0, 1, 1, 2, 5, 20, 100, 400]) if rng.random() > 0.02 else 3000
        both(ours, server, "pfadd", key, *random_members(rng, n))
        same_keys(ours, server, [key])
        if rng.random() < 0.3:
            both(ours, server, "pfcount", key)
            same_keys(ours, server, [key])
    for k in keys:
        both(ours, server, "pfcount", k)
    same_keys(ours, server, keys)


def test_unions_and_pfmerge(server, seed):
    rng = random.Random(seed)
    ours = Ours()
    keys = ["{m}a", "{m}b", "{m}c", "{m}d"]
    for step in range(int(60 * SCALE)):
        op = rng.random()
        if op < 0.5:
            key = rng.choice(keys)
            both(ours, server, "pfadd", key, *random_members(rng, rng.choice([1, 10, 200, 1500])))
        elif op < 0.75:
            both(ours, server, "pfcount", *rng.sample(keys + ["{m}missing"], rng.randint(2, 4)))
        else:
            dest = rng.choice(keys + ["{m}new%d" % step])
            sources = rng.sample(keys + ["{m}missing"], rng.randint(1, 3))
            both(ours, server, "pfmerge", dest, *sources)
            same_keys(ours, server, [dest])
            both(ours, server, "pfcount", dest)
            same_keys(ours, server, [dest])
    same_keys(ours, server, keys)


def test_bytes_move_both_ways(server, seed):
    rng = random.Random(seed)
    for n in (0, 3, 300, 1700, 20000):
        members = random_members(rng, n)
        # Redis -> fastrank
        server.delete("src")
        server.pfadd("src", *members) if members else server.pfadd("src")
        h = HyperLogLog.from_bytes(server.get("src"))
        extra = random_members(rng, 50)
        assert h.add_many(extra) == bool(server.pfadd("src", *extra))
        assert h.to_bytes() == server.get("src")
        assert h.count() == server.pfcount("src")
        assert h.to_bytes() == server.get("src")
        # fastrank -> Redis
        mine = HyperLogLog()
        mine.add_many(members)
        if rng.random() < 0.5:
            mine.count()
        server.set("dst", mine.to_bytes())
        assert server.pfcount("dst") == mine.count()
        assert server.get("dst") == mine.to_bytes()
        more = random_members(rng, 30)
        assert bool(server.pfadd("dst", *more)) == mine.add_many(more)
        assert server.get("dst") == mine.to_bytes()


def _mutate(rng: random.Random, v: bytes) -> bytes:
    b = bytearray(v)
    kind = rng.randrange(9)
    if kind == 0 and len(b) > 16:                       # truncate
        del b[rng.randrange(16, len(b)):]
    elif kind == 1:                                     # flip a byte
        i = rng.randrange(len(b))
        b[i] ^= 1 << rng.randrange(8)
    elif kind == 2 and len(b) > 16:                     # change a payload byte
        b[rng.randrange(16, len(b))] = rng.randrange(256)
    elif kind == 3:                                     # append opcodes
        b += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 4)))
    elif kind == 4 and len(b) > 17:                     # delete a byte
        del b[rng.randrange(16, len(b))]
    elif kind == 5:                                     # header encoding / magic
        b[rng.choice([0, 1, 2, 3, 4])] = rng.choice([0, 1, 2, 0x48, 0xff])
    elif kind == 6:                                     # cache flag / cache bytes
        b[rng.randrange(8, 16)] = rng.randrange(256)
    elif kind == 7:                                     # overrun: VAL run past the end
        b += b"\x83" * rng.randrange(1, 5)
    else:                                               # insert a byte
        b.insert(rng.randrange(16, len(b) + 1), rng.randrange(256))
    return bytes(b)


def test_mutated_strings_get_the_same_reply(server, seed):
    rng = random.Random(seed)
    bases = []
    for n in (0, 1, 5, 60, 400):
        bases.append(pfadd_bytes(None, ["b%d" % i for i in range(n)])[0])
    bases.append(pfadd_bytes(None, ["d%d" % i for i in range(3000)])[0])
    ours = Ours()
    good, _ = pfadd_bytes(None, ["g1", "g2", "g3"])
    for step in range(int(300 * SCALE)):
        v = rng.choice(bases)
        for _ in range(rng.randint(1, 3)):
            v = _mutate(rng, v)
        for side in (ours, server):
            side.set("k", v)
            side.set("g", good)
        op = rng.randrange(5)
        if op == 0:
            both(ours, server, "pfcount", "k")
        elif op == 1:
            both(ours, server, "pfadd", "k", *random_members(rng, rng.choice([1, 5, 50])))
        elif op == 2:
            both(ours, server, "pfcount", "g", "k")
        elif op == 3:
            both(ours, server, "pfmerge", "g", "k")
        else:
            both(ours, server, "pfmerge", "k", "g")
        same_keys(ours, server, ["k", "g"])


HEADER = b"HYLL\x01\x00\x00\x00" + bytes(7) + b"\x80"

HOSTILE = {
    "empty": b"",
    "short": b"HYLL\x01",
    "15 bytes": HEADER[:15],
    "header only": HEADER,
    "bad magic": b"HYLX" + HEADER[4:] + b"\x7f\xff",
    "encoding 2": b"HYLL\x02" + HEADER[5:] + b"\x7f\xff",
    "dense too short": b"HYLL\x00" + HEADER[5:] + bytes(12287),
    "dense too long": b"HYLL\x00" + HEADER[5:] + bytes(12289),
    "int-like": b"12345678901234567",
    "sparse lying short": HEADER + b"\x7f\xfe",
    "sparse lying long": HEADER + b"\x7f\xff\x00",
    "opcodes overrun": HEADER + b"\x7f\xfe\x83",
    "trailing VAL": HEADER + b"\x7f\xff\x80",
    "truncated XZERO": HEADER + b"\x7f",
    "XZERO reads terminator": HEADER + b"\x40\xfe\x7f",
    "many XZERO": HEADER + b"\x7f\xff" * 5000,
    "VAL 32 everywhere": HEADER + b"\xff" * 4096,
    "dense all 63": b"HYLL\x00" + HEADER[5:] + b"\xff" * 12288,
    "valid cache lie": b"HYLL\x01" + bytes(3) + (12345).to_bytes(8, "little") + b"\x7f\xff",
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_strings(server, name):
    ours = Ours()
    v = HOSTILE[name]
    good, _ = pfadd_bytes(None, ["a", "b"])
    for args in (("pfcount", "k"), ("pfadd", "k", "a", "zz", "item:7"), ("pfadd", "k"),
                 ("pfcount", "k", "g"), ("pfmerge", "g", "k"), ("pfmerge", "k", "g")):
        for side in (ours, server):
            side.set("k", v)
            side.set("g", good)
        both(ours, server, *args)
        same_keys(ours, server, ["k", "g"])
