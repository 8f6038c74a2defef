"""The leaderboard and sketch backends live in the package now: ``fastrank._bench_peers``."""
from fastrank._bench_peers import (  # noqa: F401
    KEY,
    RedisPyClient,
    RedisPyPipelined,
    SketchPeer,
    SortedContainersBoard,
    SortedSetBatch,
    SortedSetSingle,
    cms_peers,
    hll_peers,
    redis_sketch_peers,
)
