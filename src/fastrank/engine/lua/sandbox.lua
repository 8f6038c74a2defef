-- The script environment Redis 7.0 gives EVAL scripts, built once per Engine
-- inside a lupa Lua 5.1 runtime (see sandbox.py, which runs this chunk).
--
-- It receives the Python side's functions (`py`) and returns the entry points
-- Python calls: compile(body), run(fn, time_limit, numkeys, ...) and
-- install_guard(). User code only ever sees the readonly environment built
-- here: every library table and the globals are proxies (writes raise
-- "Attempt to modify a readonly table", reading an unknown global raises
-- "Script attempted to access nonexistent global variable"), no os/io/debug/
-- loadfile/dofile/require/print. The Python callables it sees (redis.call,
-- the libraries' functions) and the Python exceptions their errors carry are
-- lupa userdata whose attributes the runtime's attribute filter refuses, and
-- which type/tostring/getmetatable show as Redis's C functions; pcall, xpcall
-- and coroutine.resume hand scripts Redis's values instead of the exceptions.
-- No function hands out a proxy's backing table (pairs, next, ipairs, rawget,
-- rawset, setmetatable all see through or refuse), so nothing one script does
-- to the globals or the libraries reaches the next. No precompiled chunk is
-- loaded, the loop guard holds in error handlers, and a Lua "not enough
-- memory" (the runtime's cap) stops the script like the guard.
local py = ...

local type, error, rawget, rawset, rawequal = type, error, rawget, rawset, rawequal
local setmetatable, getmetatable, select, tostring = setmetatable, getmetatable, select, tostring
local tonumber, next, pairs, ipairs, setfenv = tonumber, next, pairs, ipairs, setfenv
local loadstring, load, xpcall, pcall, unpack = loadstring, load, xpcall, pcall, unpack
local fmt, concat, strlen, strbyte = string.format, table.concat, string.len, string.byte
local getinfo, sethook, rawmetatable = debug.getinfo, debug.sethook, debug.getmetatable
local collectgarbage = collectgarbage
local INTERNAL = getinfo(1, "S").source

-- redis.call and redis.pcall are the Python callables themselves (C functions
-- to Lua, so "return redis.call(...)" keeps the script's frame for the error
-- line); their errors arrive as Python exception userdata: error_text reads them.
local call, rpcall, error_text = py.call, py.pcall, py.error_text
local bridge_now = py.now
local libs = py.libs

-- -- readonly tables ---------------------------------------------------------
local READONLY = "Attempt to modify a readonly table"
local backing = setmetatable({}, {__mode = "k"})  -- proxy -> real table

local function refuse() error(READONLY, 2) end

local function readonly(t)
  local p = setmetatable({}, {__index = t, __newindex = refuse, __metatable = false})
  backing[p] = t
  return p
end

-- -- the loop guard: an instruction-count hook reads the clock ---------------
-- A run costs nothing here: the first hook call of a run (after GUARD_EVERY
-- instructions) starts its clock, later ones compare with the limit.
local limit = nil      -- seconds the running script may take, or nil
local deadline = nil   -- monotonic seconds, from the first hook call of a run
local killed = nil     -- the error table, once the guard fired
local GUARD_EVERY = 100000

-- -- a Lua "not enough memory" (the runtime's cap, Engine.script_memory_limit)
-- stops the script as the guard does: no pcall goes on past it
local MEMERR = "not enough memory"
local collect_after = false  -- the run hit the cap: collect its garbage at the end
local function out_of_memory()
  collect_after = true
  killed = {err = py.memory_line()}
  error(killed, 0)
end

-- The guard raises from inside the hook, where Lua runs with hooks off until
-- the error reaches a pcall: an xpcall handler called on the way would run
-- unguarded, so no script code runs once `killed` is set (s_xpcall, caught
-- and error_info see it first and pass the error on).
local function guard()
  if killed ~= nil then error(killed, 0) end
  if limit == nil then return end
  local now = bridge_now()
  if now < 0 then out_of_memory() end  -- past the memory cap (LuaScripting._now)
  if deadline == nil then
    deadline = now + limit
  elseif now > deadline then
    killed = {err = py.timeout_line()}
    error(killed, 0)
  end
end

-- the Python callables scripts see (redis.call, the libraries' functions):
-- callable -> the "function: 0x..." text tostring gives (see below)
local pyfn = {}

-- -- the Redis error handler (source/line of the first user frame) ----------
local function error_info(err)
  if killed ~= nil then err = killed end
  local level = 2
  local info = getinfo(level, "Sl")
  while info and (info.what == "C" or info.what == "tail" or info.source == INTERNAL) do
    level = level + 1
    info = getinfo(level, "Sl")
  end
  if type(err) == "userdata" and not pyfn[err] then
    local text, plain = error_text(err)
    err = {err = plain and ("ERR " .. text) or text}
  elseif type(err) ~= "table" then
    err = {err = "ERR " .. tostring(err)}
  end
  return {err = err, source = info and info.source, line = info and info.currentline}
end

-- -- pcall/xpcall: a redis error table is caught as its text (Redis 7.0) -----
local function caught(ok, ...)
  if ok then return ok, ... end
  local e = ...
  if killed ~= nil then error(killed, 0) end
  if e == MEMERR then out_of_memory() end
  if type(e) == "table" then
    local m = rawget(e, "err")
    if type(m) == "string" then return false, m end
  elseif type(e) == "userdata" and not pyfn[e] then
    return false, (error_text(e))
  end
  return false, ...
end

local function s_pcall(f, ...)
  return caught(pcall(f, ...))
end

-- The script's handler runs at most once per xpcall. Lua calls the handler
-- again for an error raised inside it (and again, nested, until its C stack
-- runs out: about 220 calls, each of which may be slow, before it gives up
-- with "error in error handling"); here its second entry ends the xpcall at
-- once with that text (docs/compatibility.md, the sandbox).
local ERRERR = "error in error handling"
local handler_failed = {}  -- the error value of a failed handler (no script sees it)

local function s_xpcall(f, handler)
  local entered = false
  return (function(ok, ...)
    if not ok then
      if killed ~= nil then error(killed, 0) end
      local e = ...
      if e == MEMERR then out_of_memory() end
      if e == handler_failed then return false, ERRERR end
    end
    return ok, ...
  end)(xpcall(f, function(e)
    -- the guard's error comes here with hooks off: the script's handler
    -- must not run then (it could loop for ever)
    if killed ~= nil then return killed end
    if entered then return handler_failed end
    entered = true
    if type(e) == "userdata" and not pyfn[e] then
      local text, plain, executed = error_text(e)
      if plain then e = text
      else
        e = {err = text}
        if executed then e.ignore_error_stats_update = true end
      end
    end
    return handler(e)
  end))
end

-- -- the redis table -----------------------------------------------------------
local function push_error(text)
  -- luaPushErrorBuff: "-CODE msg" keeps its code, anything else gets ERR.
  local code, msg
  if text:sub(1, 1) == "-" then
    local sp = text:find(" ", 1, true)
    if sp then code, msg = text:sub(2, sp - 1), text:sub(sp + 1)
    else code, msg = "ERR", text:sub(2) end
  else
    code, msg = "ERR", text
  end
  msg = msg:gsub("^[\r\n]+", ""):gsub("[\r\n]+$", "")
  return {err = code .. " " .. msg}
end

local function error_reply(...)
  local e = ...
  if select("#", ...) ~= 1 or type(e) ~= "string" then
    return push_error("wrong number or type of arguments")
  end
  if e:sub(1, 1) ~= "-" then e = "-" .. e end
  return push_error(e)
end

local function status_reply(...)
  local s = ...
  if select("#", ...) ~= 1 or type(s) ~= "string" then
    return push_error("wrong number or type of arguments")
  end
  return {ok = s}
end

-- the RESP version redis.setresp chose (kept by Python, read for table replies)
local resp = 2
local get_resp = py.getresp

local function noop() end

local redis = {
  call = call, pcall = rpcall, error_reply = error_reply, status_reply = status_reply,
  sha1hex = py.sha1hex, log = py.log, setresp = py.setresp, set_repl = py.set_repl,
  replicate_commands = function() return true end,
  breakpoint = function() return false end, debug = noop,
  acl_check_cmd = function(...) return py.acl_check(...) end,
  LOG_DEBUG = 0, LOG_VERBOSE = 1, LOG_NOTICE = 2, LOG_WARNING = 3,
  REPL_NONE = 0, REPL_AOF = 1, REPL_SLAVE = 2, REPL_REPLICA = 2, REPL_ALL = 3,
  REDIS_VERSION = "7.0.15", REDIS_VERSION_NUM = 0x07000f,
}

-- -- the globals -----------------------------------------------------------------
local function copy(t, into)
  into = into or {}
  for k, v in next, t do into[k] = v end
  return into
end

local m = copy(math)
m.random, m.randomseed = py.math.random, py.math.randomseed  -- rand48.py

local G = {}    -- the real globals; scripts see them through the proxy env
local env = readonly(G)

-- No precompiled chunk is ever loaded: one starting with ESC (Lua's binary
-- signature) is read as text, which fails as Redis's Lua fails on it. The
-- test uses strbyte, a local captured before any script ran (scripts cannot
-- reach it), never a method of the string they pass.
local ESC = 27

local function s_loadstring(s, name)
  if type(s) == "string" and strbyte(s, 1) == ESC then
    return loadstring(" " .. s, name or s)
  end
  local f, e = loadstring(s, name)
  if f then setfenv(f, env) end
  return f, e
end

local function s_load(fn, name)
  if type(fn) == "function" then
    local reader, first = fn, true
    fn = function()  -- a precompiled chunk is read as text, as by s_loadstring
      local piece = reader()
      if first and type(piece) == "string" and piece ~= "" then
        first = false
        if strbyte(piece, 1) == ESC then piece = " " .. piece end
      elseif first and type(piece) == "number" then
        first = false  -- Lua reads it as its text, which never starts with ESC
      end
      return piece
    end
  end
  local f, e = load(fn, name)
  if f then setfenv(f, env) end
  return f, e
end

-- The readonly proxies are the only tables scripts can reach: iterating one
-- reads its backing table, but every function here hands out the proxy
-- (never the backing table) as the iteration's state. Argument errors are
-- raised at the caller's position (level 2), as the C functions' are.
local function arg_error(n, name, detail, level)
  error(fmt("bad argument #%d to '%s' (%s)", n, name, detail), level)
end

local function s_type(...)
  local v = ...
  if select("#", ...) == 0 then arg_error(1, "type", "value expected", 3) end
  local t = type(v)
  if t == "userdata" and pyfn[v] then return "function" end
  return t
end

local function table_error(n, name, count, t)
  arg_error(n, name, "table expected, got " .. (count < n and "no value" or s_type(t)), 4)
end

local function s_next(...)
  local t, k = ...
  if type(t) ~= "table" then table_error(1, "next", select("#", ...), t) end
  return next(backing[t] or t, k)
end
local function s_pairs(...)
  local t = ...
  if type(t) ~= "table" then table_error(1, "pairs", select("#", ...), t) end
  if backing[t] then return s_next, t, nil end
  return next, t, nil
end
local function proxy_inext(t, i)
  i = i + 1
  local v = rawget(backing[t], i)
  if v ~= nil then return i, v end
end
local function s_ipairs(...)
  local t = ...
  if type(t) ~= "table" then table_error(1, "ipairs", select("#", ...), t) end
  if backing[t] then return proxy_inext, t, 0 end
  return ipairs(t)
end
local function s_rawget(...)
  local t, k = ...
  if type(t) ~= "table" then table_error(1, "rawget", select("#", ...), t) end
  return rawget(backing[t] or t, k)
end
local function s_getmetatable(...)
  local v = ...
  if select("#", ...) == 0 then arg_error(1, "getmetatable", "value expected", 3) end
  if type(v) == "userdata" and pyfn[v] then return nil end
  return getmetatable(v)
end

-- collectgarbage, except that the collector's settings a script changes do
-- not outlive it (finish restores them)
local gc_changed = false
local function s_collectgarbage(opt, arg)
  if opt == "stop" or opt == "setpause" or opt == "setstepmul" then gc_changed = true end
  return collectgarbage(opt, arg)
end

local function pack(...) return {n = select("#", ...), ...} end

-- coroutines get the loop guard too (each Lua thread has its own hook)
local co_create, co_resume = coroutine.create, coroutine.resume

local function s_create(f)
  local co = co_create(f)
  sethook(co, guard, "", GUARD_EVERY)
  return co
end

local function s_coroutine()
  local c = copy(coroutine)
  c.create = s_create
  c.wrap = function(f)
    local co = s_create(f)
    return function(...)
      local r = pack(co_resume(co, ...))
      if r[1] then return unpack(r, 2, r.n) end
      if killed ~= nil then error(killed, 0) end
      if r[2] == MEMERR then out_of_memory() end
      if type(r[2]) == "string" then error(r[2], 2) end  -- the caller's position, as auxwrap
      error(r[2], 0)
    end
  end
  c.resume = function(co, ...)
    return (function(ok, ...)
      if ok then return ok, ... end
      if killed ~= nil then error(killed, 0) end
      local e = ...
      if e == MEMERR then out_of_memory() end
      if type(e) == "userdata" and not pyfn[e] then
        local text, plain, executed = error_text(e)
        if plain then return false, text end
        e = {err = text}
        if executed then e.ignore_error_stats_update = true end
        return false, e
      end
      return false, ...
    end)(co_resume(co, ...))
  end
  return readonly(c)
end

-- string.dump is left out: nothing a script may load can use its output
local str = copy(string)
str.dump = nil

copy({
  _VERSION = _VERSION, assert = assert, collectgarbage = s_collectgarbage, gcinfo = gcinfo,
  error = error, getmetatable = s_getmetatable,  -- setmetatable, rawset: api.set_builtins
  ipairs = s_ipairs, pairs = s_pairs, next = s_next, load = s_load, loadstring = s_loadstring,
  pcall = s_pcall, xpcall = s_xpcall, rawequal = rawequal, rawget = s_rawget,
  select = select, tonumber = tonumber, tostring = tostring, type = s_type, unpack = unpack,
  string = readonly(str), table = readonly(copy(table)), math = readonly(m),
  coroutine = s_coroutine(), redis = readonly(redis),
  __redis__err__handler = error_info,
}, G)
for name, lib in next, libs do G[name] = readonly(lib) end
G._G = env

-- strings index the readonly string library, as Redis's do; scripts see the
-- string metatable (and cannot see lupa's one for Python objects) only as a
-- readonly table, so no script changes them for the next
local string_mt = getmetatable("")
string_mt.__index = G.string
string_mt.__metatable = readonly({__index = G.string})

-- The Python callables are lupa userdata: to scripts they are functions as
-- Redis's C functions are (type "function", tostring "function: 0x...", no
-- metatable); nothing of the Python object (its repr, type or address)
-- reaches Lua. Each one's text is the address of a Lua function of its own.
local keep_alive = {}
local py_mt = rawmetatable(call)  -- lupa's metatable of every Python object
local function alias_functions(t)
  for _, v in next, t do
    if type(v) == "userdata" and rawmetatable(v) == py_mt and not pyfn[v] then
      local f = function() end
      keep_alive[#keep_alive + 1] = f
      pyfn[v] = tostring(f)
    end
  end
end
alias_functions(redis)
alias_functions(m)
for _, lib in next, libs do alias_functions(lib) end
py_mt.__metatable = false
py_mt.__tostring = function(u) return pyfn[u] or "userdata" end

setmetatable(G, {__index = function(_, k)
  error(fmt("Script attempted to access nonexistent global variable '%s'", tostring(k)), 2)
end, __newindex = refuse, __metatable = false})

-- -- the reply of a script, serialised for Python (see sandbox.py) --------
-- Redis converts the reply on its Lua stack, checking at each value that 4
-- more slots fit under Lua's C stack limit (8000); where they do not, that
-- value is the error "reached lua stack limit" (so a cyclic or very deep
-- table ends in it). `slots` counts what Redis's stack holds at the value: 2
-- at the top, one more per array level, 3 more for a map's value (4 for its
-- key), 3 more for a set's member.
local STACK_LIMIT = 8000
local DEPTH_ERROR = "ERR reached lua stack limit"

local function encode(v, out, slots)
  if slots + 4 > STACK_LIMIT then
    out[#out + 1] = "-" .. strlen(DEPTH_ERROR) .. "\n" .. DEPTH_ERROR
    return
  end
  local t = type(v)
  if t == "string" then
    out[#out + 1] = "$" .. strlen(v) .. "\n" .. v
  elseif t == "number" then
    out[#out + 1] = ":" .. fmt("%.17g", v) .. "\n"
  elseif t == "boolean" then
    if resp == 3 then out[#out + 1] = v and "#t" or "#f"
    else out[#out + 1] = v and ":1\n" or "_" end
  elseif t == "table" then
    local e = rawget(v, "err")
    if type(e) == "string" then out[#out + 1] = "-" .. strlen(e) .. "\n" .. e; return end
    local ok = rawget(v, "ok")
    if type(ok) == "string" then out[#out + 1] = "+" .. strlen(ok) .. "\n" .. ok; return end
    local d = rawget(v, "double")
    if type(d) == "number" then
      out[#out + 1] = "," .. fmt("%.17g", d) .. "\n"
      return
    end
    local mp = rawget(v, "map")
    if type(mp) == "table" then
      local n, at = 0, #out + 1
      out[at] = ""
      for k, x in next, mp do encode(k, out, slots + 4); encode(x, out, slots + 3); n = n + 1 end
      out[at] = "%" .. n .. "\n"
      return
    end
    local st = rawget(v, "set")
    if type(st) == "table" then
      local n, at = 0, #out + 1
      out[at] = ""
      for k in next, st do encode(k, out, slots + 3); n = n + 1 end
      out[at] = "*" .. n .. "\n"
      return
    end
    local big = rawget(v, "big_number")
    if type(big) == "string" then out[#out + 1] = "$" .. strlen(big) .. "\n" .. big; return end
    local vs = rawget(v, "verbatim_string")
    if type(vs) == "table" then
      local body = rawget(vs, "string")
      if type(body) == "string" and type(rawget(vs, "format")) == "string" then
        out[#out + 1] = "$" .. strlen(body) .. "\n" .. body
        return
      end
    end
    local at = #out + 1
    out[at] = ""
    local n = 0
    while true do
      local x = rawget(v, n + 1)
      if x == nil then break end
      n = n + 1
      encode(x, out, slots + 1)
    end
    out[at] = "*" .. n .. "\n"
  else
    out[#out + 1] = "_"
  end
end

-- -- entry points ----------------------------------------------------------------
local api = {}

function api.compile(body)
  if strbyte(body, 1) == ESC then body = " " .. body end  -- text, never bytecode
  local f, e = loadstring(body, "@user_script")
  if not f then return nil, e end
  setfenv(f, env)
  return f
end

local function reset()
  limit, deadline, killed = nil, nil, nil
  if collect_after then
    collect_after = false
    collectgarbage("collect")
  end
  if gc_changed then  -- the collector as it was before the script
    gc_changed = false
    collectgarbage("setpause", 200)
    collectgarbage("setstepmul", 200)
    collectgarbage("restart")
  end
end

local function finish(ok, res)
  reset()
  if ok then
    local t = type(res)
    if t == "string" or t == "number" or t == "boolean" or t == "nil" then return true, res end
    resp = get_resp()
    local out = {}
    encode(res, out, 2)
    return true, nil, concat(out)
  end
  if type(res) ~= "table" then
    if res == MEMERR then  -- no handler runs for it: what is left is garbage now
      collectgarbage("collect")
      return false, py.memory_line(), nil, nil, false
    end
    -- an error inside the error handler (e.g. stack overflow)
    return false, "ERR " .. tostring(res), nil, nil, false
  end
  local e = res.err
  local text = type(e) == "table" and rawget(e, "err") or nil
  return false, text, res.source, res.line, type(text) ~= "string"
end

local function start(f, time_limit, keys, argv)
  rawset(G, "KEYS", keys)
  rawset(G, "ARGV", argv)
  limit, deadline, killed = time_limit, nil, nil
  return finish(xpcall(f, error_info))
end

-- a script's keys and arguments, as varargs (the quick way for a few)
function api.run(f, time_limit, nkeys, ...)
  local argv = {select(nkeys + 1, ...)}
  local keys
  if nkeys == 1 then keys = {(...)}
  elseif nkeys == 0 then keys = {}
  else
    keys = {...}
    for i = nkeys + 1, select("#", ...) do keys[i] = nil end
  end
  return start(f, time_limit, keys, argv)
end

-- ... or as two tables: a call's varargs sit on the C stack, which Lua 5.1
-- caps at 8000 slots, and Redis takes any number of arguments
function api.run_tables(f, time_limit, keys, argv)
  return start(f, time_limit, keys, argv)
end

-- setmetatable and rawset are Python functions (C functions to Lua, so a
-- tail call keeps the script's frame for the error position, as Redis's C
-- functions do); these helpers do the table work for them
function api.set_metatable(t, mt)
  if backing[t] then return "readonly" end
  local old = rawmetatable(t)
  if old ~= nil and rawget(old, "__metatable") ~= nil then return "protected" end
  setmetatable(t, mt)
end

function api.raw_set(t, k, v)
  if backing[t] then return "readonly" end
  rawset(t, k, v)
end

function api.set_builtins(t)
  for k, v in next, t do rawset(G, k, v) end
  alias_functions(t)
end

-- after an error outside any pcall of this chunk (Python saw it): the state
-- a run leaves, and the memory it held
function api.recover()
  reset()
  collectgarbage("collect")
end

function api.install_guard()
  sethook(guard, "", GUARD_EVERY)
end

return api
