-- fastrank scripts: member byte order, prepended to the scripts that compare members.
-- byte order (as a sorted set orders members), whatever the server's locale
local function bytes_before(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end
