-- cjson for scripts, in Lua: the behaviour of the lua-cjson 2.1 that Redis
-- 7.0 embeds (encode order is the table's `next` order, numbers "%.14g",
-- "/" escaped, sparse arrays, depth limits, error texts), written for
-- fastrank's Lua 5.1 sandbox (sandbox.lua installs it as `cjson`).
-- Returns a constructor: new() gives a module table with its own settings.
local null = ...

local type, next, error, tostring, tonumber, select = type, next, error, tostring, tonumber, select
local rawget, ipairs = rawget, ipairs
local fmt, byte, char, sub, find, concat = string.format, string.byte, string.char, string.sub,
  string.find, table.concat
local floor, huge = math.floor, math.huge

local ESCAPE = {}
for i = 0, 31 do ESCAPE[char(i)] = fmt("\\u%04x", i) end
ESCAPE["\b"], ESCAPE["\t"], ESCAPE["\n"], ESCAPE["\f"], ESCAPE["\r"] = "\\b", "\\t", "\\n", "\\f", "\\r"
ESCAPE['"'], ESCAPE["\\"], ESCAPE["/"], ESCAPE["\127"] = '\\"', "\\\\", "\\/", "\\u007f"

local function quote(s)
  return '"' .. s:gsub('[%c"\\/\127]', ESCAPE) .. '"'
end

local function new()
  local cfg = {
    precision = 14, max_depth = 1000, decode_depth = 1000,
    sparse_convert = false, sparse_ratio = 2, sparse_safe = 10,
    invalid_numbers = false, decode_invalid = true, keep_buffer = true,
  }

  local function number(n)
    if n ~= n or n == huge or n == -huge then
      if cfg.invalid_numbers == "null" then return "null" end
      if cfg.invalid_numbers then
        if n ~= n then return "nan" end
        return n > 0 and "inf" or "-inf"
      end
      error("Cannot serialise number: must not be NaN or Inf", 0)
    end
    return fmt("%." .. cfg.precision .. "g", n)
  end

  -- lua-cjson's lua_array_length: -1 for an object, else the array length
  local function array_length(t)
    local max, items = 0, 0
    for k in next, t do
      if type(k) == "number" and k > 0 and floor(k) == k then
        if k > max then max = k end
        items = items + 1
      else
        return -1
      end
    end
    if cfg.sparse_ratio > 0 and max > items * cfg.sparse_ratio and max > cfg.sparse_safe then
      if not cfg.sparse_convert then
        error("Cannot serialise table: excessively sparse array", 0)
      end
      return -1
    end
    return max
  end

  local encode_value
  local function encode_table(t, depth, out)
    depth = depth + 1
    if depth > cfg.max_depth then
      error(fmt("Cannot serialise, excessive nesting (%d)", depth), 0)
    end
    local len = array_length(t)
    if len > 0 then
      out[#out + 1] = "["
      for i = 1, len do
        if i > 1 then out[#out + 1] = "," end
        local v = rawget(t, i)  -- as lua-cjson reads it: no __index
        if v == nil then out[#out + 1] = "null" else encode_value(v, depth, out) end
      end
      out[#out + 1] = "]"
      return
    end
    out[#out + 1] = "{"
    local first = true
    for k, v in next, t do
      if not first then out[#out + 1] = "," end
      first = false
      local kt = type(k)
      if kt == "string" then
        out[#out + 1] = quote(k)
      elseif kt == "number" then
        out[#out + 1] = '"' .. number(k) .. '"'
      else
        error("Cannot serialise " .. kt .. ": table key must be a number or string", 0)
      end
      out[#out + 1] = ":"
      encode_value(v, depth, out)
    end
    out[#out + 1] = "}"
  end

  encode_value = function(v, depth, out)
    local t = type(v)
    if t == "string" then out[#out + 1] = quote(v)
    elseif t == "number" then out[#out + 1] = number(v)
    elseif t == "boolean" then out[#out + 1] = v and "true" or "false"
    elseif t == "table" then encode_table(v, depth, out)
    elseif v == null then out[#out + 1] = "null"
    else error("Cannot serialise " .. t .. ": type not supported", 0) end
  end

  local M = {_NAME = "cjson", _VERSION = "2.1.0", null = null, new = new}

  function M.encode(...)
    if select("#", ...) ~= 1 then
      error("bad argument #1 to 'encode' (expected 1 argument)", 2)
    end
    local out = {}
    local ok, e = pcall(encode_value, (...), 0, out)
    if not ok then error(e, 2) end
    return concat(out)
  end

  -- -- decoding ---------------------------------------------------------------
  local WS = {[" "] = true, ["\t"] = true, ["\n"] = true, ["\r"] = true}
  local SIMPLE = {["{"] = "T_OBJ_BEGIN", ["}"] = "T_OBJ_END", ["["] = "T_ARR_BEGIN",
                  ["]"] = "T_ARR_END", [":"] = "T_COLON", [","] = "T_COMMA"}
  local UNESCAPE = {['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n",
                    r = "\r", t = "\t"}

  local function utf8(cp)
    if cp < 0x80 then return char(cp) end
    if cp < 0x800 then return char(0xC0 + floor(cp / 64), 0x80 + cp % 64) end
    if cp < 0x10000 then
      return char(0xE0 + floor(cp / 4096), 0x80 + floor(cp / 64) % 64, 0x80 + cp % 64)
    end
    return char(0xF0 + floor(cp / 262144), 0x80 + floor(cp / 4096) % 64,
                0x80 + floor(cp / 64) % 64, 0x80 + cp % 64)
  end

  -- next token at i: type, value, index of its start, position after it
  local function token(s, i)
    local n = #s
    while i <= n and WS[sub(s, i, i)] do i = i + 1 end
    if i > n then return "T_END", nil, i, i end
    local c = sub(s, i, i)
    if c == "\0" then return "T_END", nil, i, i end  -- lua-cjson reads a C string
    local simple = SIMPLE[c]
    if simple then return simple, nil, i, i + 1 end
    if c == '"' then
      local parts, j = {}, i + 1
      while true do
        local q = find(s, '["\\%z]', j)
        if not q then return "T_ERROR", "unexpected end of string", n + 1, n + 1 end
        if byte(s, q) == 0 then return "T_ERROR", "unexpected end of string", q, q end
        parts[#parts + 1] = sub(s, j, q - 1)
        if sub(s, q, q) == '"' then return "T_STRING", concat(parts), i, q + 1 end
        local e = sub(s, q + 1, q + 1)
        if e == "u" then
          local cp = tonumber(sub(s, q + 2, q + 5), 16)
          if not cp or not find(sub(s, q + 2, q + 5), "^%x%x%x%x$") then
            return "T_ERROR", "invalid unicode escape code", q, q
          end
          j = q + 6
          if cp >= 0xD800 and cp <= 0xDBFF then
            local lo = sub(s, j, j + 1) == "\\u" and tonumber(sub(s, j + 2, j + 5), 16)
            if not lo or lo < 0xDC00 or lo > 0xDFFF then
              return "T_ERROR", "invalid unicode escape code", q, q
            end
            cp = 0x10000 + (cp - 0xD800) * 1024 + (lo - 0xDC00)
            j = j + 6
          elseif cp >= 0xDC00 and cp <= 0xDFFF then
            return "T_ERROR", "invalid unicode escape code", q, q
          end
          parts[#parts + 1] = utf8(cp)
        else
          local u = UNESCAPE[e]
          if not u then return "T_ERROR", "invalid escape code", q, q end
          parts[#parts + 1] = u
          j = q + 2
        end
      end
    end
    if sub(s, i, i + 3) == "true" then return "T_BOOLEAN", true, i, i + 4 end
    if sub(s, i, i + 4) == "false" then return "T_BOOLEAN", false, i, i + 5 end
    if sub(s, i, i + 3) == "null" then return "T_NULL", null, i, i + 4 end
    if c == "-" or find(c, "%d") or (cfg.decode_invalid and find(c, "[iInN]")) then
      local text = s:match("^-?0[xX]%x+", i) or s:match("^-?%d+%.?%d*[eE][%+%-]?%d+", i)
        or s:match("^-?%d+%.?%d*", i) or s:match("^-?%.%d+", i)
        or (cfg.decode_invalid and (s:match("^-?[iI][nN][fF]", i) or s:match("^-?[nN][aA][nN]", i)))
      local v = text and tonumber(text)
      if v == nil and text then
        local l = text:lower():gsub("^-", "")
        if l == "inf" then v = text:sub(1, 1) == "-" and -huge or huge
        elseif l == "nan" then v = 0 / 0 end
      end
      if v == nil then
        return "T_ERROR", text and "invalid number" or "invalid token", i, i
      end
      return "T_NUMBER", v, i, i + #text
    end
    return "T_ERROR", "invalid token", i, i
  end

  local function fail(expected, kind, value, at)
    local found = kind == "T_ERROR" and value or kind
    error(fmt("Expected %s but found %s at character %d", expected, found, at), 0)
  end

  local parse_value
  local function depth_check(depth, at)
    if depth > cfg.decode_depth then
      error(fmt("Found too many nested data structures (%d) at character %d", depth, at), 0)
    end
  end

  parse_value = function(s, kind, value, at, pos, depth)
    if kind == "T_STRING" or kind == "T_NUMBER" or kind == "T_BOOLEAN" or kind == "T_NULL" then
      return value, pos
    end
    if kind == "T_OBJ_BEGIN" then
      depth = depth + 1
      depth_check(depth, at)
      local t = {}
      local k, v, a
      k, v, a, pos = token(s, pos)
      if k == "T_OBJ_END" then return t, pos end
      while true do
        if k ~= "T_STRING" then fail("object key string", k, v, a) end
        local key = v
        k, v, a, pos = token(s, pos)
        if k ~= "T_COLON" then fail("colon", k, v, a) end
        k, v, a, pos = token(s, pos)
        local item
        item, pos = parse_value(s, k, v, a, pos, depth)
        t[key] = item
        k, v, a, pos = token(s, pos)
        if k == "T_OBJ_END" then return t, pos end
        if k ~= "T_COMMA" then fail("comma or object end", k, v, a) end
        k, v, a, pos = token(s, pos)
      end
    end
    if kind == "T_ARR_BEGIN" then
      depth = depth + 1
      depth_check(depth, at)
      local t, i = {}, 1
      local k, v, a
      k, v, a, pos = token(s, pos)
      if k == "T_ARR_END" then return t, pos end
      while true do
        local item
        item, pos = parse_value(s, k, v, a, pos, depth)
        t[i] = item
        i = i + 1
        k, v, a, pos = token(s, pos)
        if k == "T_ARR_END" then return t, pos end
        if k ~= "T_COMMA" then fail("comma or array end", k, v, a) end
        k, v, a, pos = token(s, pos)
      end
    end
    fail("value", kind, value, at)
  end

  function M.decode(...)
    if select("#", ...) ~= 1 then
      error("bad argument #1 to 'decode' (expected 1 argument)", 2)
    end
    local s = ...
    if type(s) == "number" then s = tostring(s) end
    if type(s) ~= "string" then
      error(fmt("bad argument #1 to 'decode' (string expected, got %s)", type(s)), 2)
    end
    if #s >= 2 and (byte(s, 1) == 0 or byte(s, 2) == 0) then
      error("JSON parser does not support UTF-16 or UTF-32", 2)
    end
    local ok, v = pcall(function()
      local k, val, a, pos = token(s, 1)
      local result
      result, pos = parse_value(s, k, val, a, pos, 0)
      k, val, a = token(s, pos)
      if k ~= "T_END" then fail("the end", k, val, a) end
      return result
    end)
    if not ok then error(v, 2) end
    return v
  end

  local function setting(name, lo, hi)
    return function(v)
      if v ~= nil then
        v = tonumber(v)
        if not v or v < lo or v > hi then
          error(fmt("bad argument #1 to '%s' (expected integer between %d and %d)", name, lo, hi), 3)
        end
        return v
      end
    end
  end
  local precision_arg = setting("encode_number_precision", 1, 14)
  local depth_arg = setting("encode_max_depth", 1, 2147483647)
  local ddepth_arg = setting("decode_max_depth", 1, 2147483647)

  function M.encode_number_precision(v)
    cfg.precision = precision_arg(v) or cfg.precision
    return cfg.precision
  end
  function M.encode_max_depth(v)
    cfg.max_depth = depth_arg(v) or cfg.max_depth
    return cfg.max_depth
  end
  function M.decode_max_depth(v)
    cfg.decode_depth = ddepth_arg(v) or cfg.decode_depth
    return cfg.decode_depth
  end
  -- lua-cjson's json_enum_option: nil keeps the setting, a boolean or one of
  -- the option words sets it; anything else is a bad argument #1
  local BOOL = {"off", "on"}
  local function enum_option(name, v, options)
    if v == nil then return nil end
    if type(v) == "boolean" then return v and 1 or 0 end
    local word = v
    if type(v) == "number" then word = fmt("%.14g", v)
    elseif type(v) ~= "string" then
      error(fmt("bad argument #1 to '%s' (string expected, got %s)", name, type(v)), 3)
    end
    for i, o in ipairs(options) do
      if word == o then return i - 1 end
    end
    error(fmt("bad argument #1 to '%s' (invalid option '%s')", name, word), 3)
  end

  function M.encode_sparse_array(convert, ratio, safe)
    local c = enum_option("encode_sparse_array", convert, BOOL)
    if c ~= nil then cfg.sparse_convert = c == 1 end
    if ratio ~= nil then cfg.sparse_ratio = tonumber(ratio) end
    if safe ~= nil then cfg.sparse_safe = tonumber(safe) end
    return cfg.sparse_convert, cfg.sparse_ratio, cfg.sparse_safe
  end
  function M.encode_invalid_numbers(v)
    local c = enum_option("encode_invalid_numbers", v, {"off", "on", "null"})
    if c ~= nil then cfg.invalid_numbers = c == 2 and "null" or c == 1 end
    return cfg.invalid_numbers
  end
  function M.decode_invalid_numbers(v)
    local c = enum_option("decode_invalid_numbers", v, BOOL)
    if c ~= nil then cfg.decode_invalid = c == 1 end
    return cfg.decode_invalid
  end
  function M.encode_keep_buffer(v)
    local c = enum_option("encode_keep_buffer", v, BOOL)
    if c ~= nil then cfg.keep_buffer = c == 1 end
    return cfg.keep_buffer
  end
  return M
end

return new
