"""The Engine's commands: one module per Redis type, and the one table.

``table`` holds the table (``COMMANDS``: name → handler, arity, flags), the
``command`` decorator that fills it and the argument helpers; each type's
module (``keys``, ``strings``, ``hashes``, ``sets``, ``sortedset``,
``hyperloglog``, ``bloom``, ``lists``, ``lcs``, ``sort``, ``bitmaps``, ``memory``,
``scripting``) registers its handlers there. Importing this package imports
them all, so ``COMMANDS`` is whole.
"""
from fastrank.engine.commands.table import COMMANDS, CommandError, Handler, command, syntax_error, to_int, to_score
from fastrank.engine.commands import keys, strings, hashes, sets, sortedset, hyperloglog, bloom  # noqa: F401
from fastrank.engine.commands import scripting  # noqa: F401
from fastrank.engine.commands import lists, lcs, sort, bitmaps  # noqa: F401
from fastrank.engine.commands import memory  # noqa: F401

__all__ = ["COMMANDS", "CommandError", "Handler", "command", "syntax_error", "to_int", "to_score"]
