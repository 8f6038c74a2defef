"""Tests of fastrank.engine.commands, one file per command module.

A package so that its file names, which mirror the command modules
(``test_sortedset.py`` for ``commands/sortedset.py``), do not clash with the
tests of the compiled structures one directory up (``tests/unit/structures/test_sortedset.py``
tests the ``SortedSet`` object itself).
"""
