"""``fastrank bench``: the side-by-side benchmark that ships with the package.

- ``runner``: the comparison itself (sizes, timing, reports, plot) and its
  command line;
- ``peers``: the backends it measures (fastrank's structures and Engine,
  redis-py per call and pipelined, sortedcontainers, the sketch libraries).
"""
