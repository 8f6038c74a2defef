"""Type stubs of fastrank.service._totals (_totals.pyx): the store's totals read by SQLite's C API."""
from typing import List, Optional, Tuple

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

class TotalsScanError(RuntimeError): ...

def scan_error() -> Optional[str]:
    """None when scan_totals can run here, else why not."""
def scan_totals(path: str, season: str, upto: int, after: str = "", until: Optional[str] = None,
                busy_ms: int = 30000, board: str = "") -> Tuple[bytes, npt.NDArray[np.int64], npt.NDArray[np.int64],
                                               npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """A season's totals in player order as flat columns: (blob, offsets, points, ats, stale rows)."""
def packed_members(blob: bytes, offsets: npt.NDArray[np.int64], rows: npt.NDArray[np.int64]) -> List[bytes]:
    """The member bytes of the given rows."""
def gather_members(blob: bytes, offsets: npt.NDArray[np.int64],
                   rows: npt.NDArray[np.int64]) -> Tuple[bytes, npt.NDArray[np.int64]]:
    """The members of rows packed again in that order: (blob, offsets)."""
def ties_in_member_order(blob: bytes, offsets: npt.NDArray[np.int64], rows: npt.NDArray[np.int64],
                         scores: npt.NDArray[np.float64]) -> bool:
    """True when equal-score neighbours are in member order."""

SCORE_SCAN_SQL: str

@disjoint_base
class ScoreOrderScan:
    """A season's totals read from the ranking index in a board's ascending order, chunk by chunk."""
    def __init__(self, path: str, season: str, upto: int, integer: bool, mirrored: bool, time_bits: int,
                 busy_ms: int = 30000, board: str = "") -> None: ...
    def changed(self) -> List[str]:
        """The players with an event after upto (left out of the chunks)."""
    def next_chunk(self, batch: int) -> Optional[Tuple[bytes, npt.NDArray[np.int64], npt.NDArray[np.int64],
                                                       npt.NDArray[np.float64], npt.NDArray[np.int64]]]:
        """The next chunk (blob, offsets, rows, scores, points), None at the end."""
    def close(self) -> None:
        """End the read transaction and close the connection."""
