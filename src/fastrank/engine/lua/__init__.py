"""The Engine's Lua runtime: the sandbox scripts run in (``sandbox``,
``sandbox.lua``), the libraries Redis 7.0 gives them (``libs``: cjson,
cmsgpack, struct, bit, math.random), and ``plans``: straight-line scripts
recognised and run without Lua."""
