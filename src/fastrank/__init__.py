"""fastrank: real-time leaderboards and counting with a compiled core."""
from fastrank._core import SortedSet

__version__ = "0.1.0"

__all__ = ["SortedSet", "__version__"]
