"""The real servers the compatibility tests rely on are up and are what we expect."""
import redis


def test_standalone_is_redis_7_0_with_redisbloom(redis_client):
    info = redis_client.info("server")
    assert info["redis_version"].startswith("7.0.")
    modules = {m[b"name"] if isinstance(m, dict) and b"name" in m else m["name"]: m
               for m in redis_client.module_list()}
    names = {n.decode() if isinstance(n, bytes) else n for n in modules}
    assert "bf" in names


def test_cluster_has_three_masters_covering_all_slots(cluster_client):
    nodes = cluster_client.get_primaries()
    assert len(nodes) == 3
    info = cluster_client.cluster_info()
    assert info["cluster_state"] == "ok"
    assert int(info["cluster_slots_assigned"]) == 16384
    cluster_client.set("{t}a", 1)
    assert cluster_client.get("{t}a") == b"1"


def test_cross_slot_multi_key_is_refused_client_side(cluster_client):
    try:
        cluster_client.mget("foo", "bar")
    except redis.exceptions.RedisClusterException as exc:
        assert "all keys must map to the same key slot" in str(exc)
    else:
        raise AssertionError("cross-slot MGET was accepted")
