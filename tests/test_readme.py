"""The examples in README.md run and print what the README says."""
import doctest
from pathlib import Path

import fastrank

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_examples():
    threads = fastrank.get_threads()  # the README changes it; later tests keep the default
    try:
        result = doctest.testfile(str(README), module_relative=False,
                                  optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    finally:
        fastrank.set_threads(threads)
    assert result.attempted > 20
    assert result.failed == 0
