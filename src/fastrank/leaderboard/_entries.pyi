"""Type stubs of fastrank.leaderboard._entries (_entries.pyx): a leaderboard reply's entries."""
from typing import Any, List, Optional, Type, TypeVar, Union

_T = TypeVar("_T")

def board_entries(entry_type: Any, items: List[Any], flat: bool, scale: float, points_of: Any, style: str,
                  start: int, first: int, infos: Any, info_of: Any, global_ranks: Any) -> List[Any]:
    """The Entry rows of a slice of a board in rank order."""
def board_range_entries(entry_type: Any, scale: float, points_of: Any, style: str, info_of: Any,
                        reply: Any) -> List[Any]:
    """range.lua's reply as the Entry rows of its slice (empty when the player is absent)."""
def board_top_entries(memo: List[Any], entry_type: Any, scale: float, points_of: Any, style: str,
                      pairs: List[Any]) -> List[Any]:
    """board_entries of a top slice, remembered with its reply in memo."""
def board_friend_entries(entry_type: Any, scores: List[Any], ranks: List[Any], infos: Optional[List[Any]],
                         members: List[Any], desc: bool, scale: float, points_of: Any, style: str,
                         info_of: Any) -> List[Any]:
    """friends.lua's reply as the entries of the members present, in board order."""
def reply_points(text: Any, scale: float) -> Union[int, float]:
    """Points a script sent back as text (ScoreCodec.parse_points)."""
def submit_change(change_type: Type[_T], reply: Any, scale: float) -> _T:
    """A ranked submit's reply as change_type(points, rank, previous or None, passed)."""
def friend_members(player: Any, friend_ids: Any, player_id: Any) -> List[Any]:
    """The distinct members a friends read names, the first of each in order."""
