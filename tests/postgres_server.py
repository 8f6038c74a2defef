"""A throwaway PostgreSQL server for the tests, from Debian's ``postgresql`` package.

``start_postgres(root)`` runs ``initdb`` into ``root`` and ``pg_ctl start`` on a
free loopback port (no Unix socket outside ``root``), and returns once the
server accepts connections. PostgreSQL refuses to run as root, so under root
both run as the ``postgres`` system user the package creates (``runuser``).
``fsync`` is off: the tests kill clients, never this server.
"""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
from dataclasses import dataclass
from typing import List, Optional

from fastrank.testing import free_port


def pg_binary(name: str) -> Optional[str]:
    """A PostgreSQL server program on PATH or in Debian's versioned folder."""
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"),
                        key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    return candidates[-1] if candidates else None


def _as_server_user(root: str) -> List[str]:
    """The command prefix that runs a program as a user PostgreSQL accepts."""
    if os.geteuid() != 0:
        return []
    user = pwd.getpwnam("postgres")  # KeyError: the package is not installed
    for folder, _, files in os.walk(root):
        os.chown(folder, user.pw_uid, user.pw_gid)
        for f in files:
            os.chown(os.path.join(folder, f), user.pw_uid, user.pw_gid)
    return ["runuser", "-u", "postgres", "--"]


@dataclass
class PostgresServer:
    port: int
    data: str
    pg_ctl: str
    prefix: List[str]

    @property
    def dsn(self) -> str:
        return f"host=127.0.0.1 port={self.port} user=fastrank dbname=postgres"

    def stop(self) -> None:
        subprocess.run([*self.prefix, self.pg_ctl, "-D", self.data, "-m", "immediate", "-w", "stop"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)


def start_postgres(root: str) -> PostgresServer:
    initdb, pg_ctl = pg_binary("initdb"), pg_binary("pg_ctl")
    if initdb is None or pg_ctl is None:
        raise FileNotFoundError("PostgreSQL's initdb / pg_ctl are not installed")
    data = os.path.join(root, "data")
    prefix = _as_server_user(root)
    subprocess.run([*prefix, initdb, "-D", data, "-U", "fastrank", "-A", "trust", "-E", "UTF8",
                    "--no-sync"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                   timeout=120)
    port = free_port()
    options = (f"-p {port} -h 127.0.0.1 -k {root} -c fsync=off -c full_page_writes=off "
               "-c synchronous_commit=off")
    started = subprocess.run([*prefix, pg_ctl, "-D", data, "-l", os.path.join(root, "server.log"),
                              "-w", "-t", "60", "-o", options, "start"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=90)
    if started.returncode != 0:
        log = os.path.join(root, "server.log")
        text = open(log).read() if os.path.exists(log) else ""
        raise RuntimeError(f"PostgreSQL did not start: {started.stderr.decode()}\n{text}")
    return PostgresServer(port, data, pg_ctl, prefix)
