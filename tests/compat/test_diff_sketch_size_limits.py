"""CMS.INITBYDIM / CMS.INITBYPROB / TOPK.RESERVE size limits: Engine vs
RedisBloom 2.8.2, reply for reply (exception class and text).

Observed on the server: width and depth are signed 64-bit (past that:
"invalid width" / "invalid depth"); a CMS whose width * depth passes
2^63 - 1 is "CMS: invalid init arguments", as is an INITBYPROB whose width
ceil(2 / error) reaches 2^63 or whose single-precision depth is 0 or
infinite; sizes it accepts but cannot allocate answer "CMS: Insufficient
memory to create the key" (TopK: "ERR Insufficient memory to create topk
data structure").  Only sizes whose answer does not depend on the machine
are sent: refusals, and allocations so big that no machine can make them
(their byte count does not fit in 64 bits).  (RedisBloom crashes on some
other huge sizes, and TOPK.RESERVE k = 2^32, which are not sent.)
"""
from __future__ import annotations

import pytest

from differential import Pair

pytestmark = pytest.mark.usefixtures("redisbloom")

INITBYDIM = [
    (2**40, 2**40),                  # the issue's example: invalid init arguments
    (2**32, 2**32), (2**62, 2), (3074457345618258603, 3), (2**62, 4), (2**63 - 1, 2),
    (2**62 - 1, 2), (2**63 - 1, 1), (3074457345618258602, 3),  # no memory
    (2**63, 1), (2**64 - 1, 1), (1, 2**63), (0, 1), (-1, 1), (1, 0), (1, -5),
    ("1.5", 1), (1, "x"),
]
INITBYPROB = [
    (1e-19, 0.5), (1e-300, 0.5), (0.01, 1e-300), (0.01, 1e-46), (0.01, 0.99999999),
    (2.2e-19, 0.5),                  # width 9.09e18: accepted, no memory
    (0, 0.5), (1, 0.5), (0.5, 0), (0.5, 1), ("x", 0.5), (0.5, "nan"),
]
RESERVE = [
    (0, 8, 7, 0.9), (-1, 8, 7, 0.9), (2**63, 8, 7, 0.9),
    (10, 0, 7, 0.9), (10, 2**32, 7, 0.9), (10, 2**63 - 1, 7, 0.9),
    (10, 8, 0, 0.9), (10, 8, 2**32, 0.9),
    (10, 2**32 - 1, 2**32 - 1, 0.9),   # no memory
    (10, 8, 7, 1.5), (10, 8, 7, 0), (10, 8, 7, -0.1),
]


@pytest.mark.parametrize("width, depth", INITBYDIM)
def test_cms_initbydim_limits(pair: Pair, width: object, depth: object) -> None:
    pair.quiet("execute_command", "CMS.INITBYDIM", "c", width, depth)
    pair.exists("c")


@pytest.mark.parametrize("error, probability", INITBYPROB)
def test_cms_initbyprob_limits(pair: Pair, error: object, probability: object) -> None:
    pair.quiet("execute_command", "CMS.INITBYPROB", "c", error, probability)
    pair.exists("c")


@pytest.mark.parametrize("k, width, depth, decay", RESERVE)
def test_topk_reserve_limits(pair: Pair, k: int, width: int, depth: int, decay: float) -> None:
    pair.quiet("execute_command", "TOPK.RESERVE", "t", k, width, depth, decay)
    pair.exists("t")


def test_redis_py_helper_on_the_issue_example(pair: Pair) -> None:
    pair.apply("cms().initbydim(2**40, 2**40)", lambda c: c.cms().initbydim("c", 2**40, 2**40),
               reraise=False)
    pair.apply("cms().initbydim(10, 3)", lambda c: c.cms().initbydim("c", 10, 3))
    pair.apply("cms().info", lambda c: vars(c.cms().info("c")))
