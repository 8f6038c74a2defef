"""The leaderboard and sketch backends live in the package now: ``fastrank.bench.peers``."""
from fastrank.bench.peers import (  # noqa: F401
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
