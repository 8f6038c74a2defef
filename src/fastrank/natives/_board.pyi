"""Types of fastrank.natives._board: the Engine's native paths of the
leaderboard's Lua scripts (each returns fastrank._core.NATIVE_DECLINE to
leave the call to the Lua script)."""
from typing import Any, List

def board_scripts_setup(zset_add: Any, new_zset: Any) -> None:
    """Hand over the keyspace helpers the write paths use."""
def board_submit(db: Any, keys: List[bytes], args: List[bytes]) -> Any:
    """submit.lua's native path (NATIVE_DECLINE: run the Lua script)."""
def board_remove(db: Any, keys: List[bytes], args: List[bytes]) -> Any:
    """remove.lua's native path."""
def board_standing(db: Any, keys: List[bytes], args: List[bytes]) -> Any:
    """standing.lua's native path."""
def board_range(db: Any, keys: List[bytes], args: List[bytes]) -> Any:
    """range.lua's native path."""
def board_friends(db: Any, keys: List[bytes], args: List[bytes]) -> Any:
    """friends.lua's native path."""
