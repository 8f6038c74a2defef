"""Type stubs of fastrank._entries (_entries.pyx): a leaderboard reply's entries."""
from typing import Any, List

def board_entries(entry_type: Any, items: List[Any], flat: bool, scale: float, points_of: Any, style: str,
                  start: int, first: int, infos: Any, info_of: Any, global_ranks: Any) -> List[Any]:
    """The Entry rows of a slice of a board in rank order."""
def board_top_entries(memo: List[Any], entry_type: Any, scale: float, points_of: Any, style: str,
                      pairs: List[Any]) -> List[Any]:
    """board_entries of a top slice, remembered with its reply in memo."""
