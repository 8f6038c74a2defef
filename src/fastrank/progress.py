"""A one-line text progress bar, shared by ``fastrank bench`` and ``fastrank demo``."""
from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """A one-line text progress bar on a terminal stream (quiet when not a tty)."""

    def __init__(self, total: int, label: str, stream: TextIO = sys.stderr, width: int = 30) -> None:
        self.total, self.label, self.stream, self.width = total, label, stream, width
        self.start = time.perf_counter()
        self.live = stream.isatty()

    def update(self, done: int) -> None:
        if not self.live:
            return
        frac = done / self.total if self.total else 1.0
        filled = int(frac * self.width)
        rate = done / max(time.perf_counter() - self.start, 1e-9)
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (self.width - filled)}] "
                          f"{done:,}/{self.total:,} {rate:,.0f}/s")
        self.stream.flush()

    def close(self) -> None:
        if self.live:
            self.stream.write("\n")
            self.stream.flush()
