-- Aerospike-style `list` and `map` types for UDFs, as Lua tables with marker metatables.
local LIST_MT = { __name = "List" }
local MAP_MT = { __name = "Map" }

-- A list holding nils (as a server's lists can) keeps its size here: a table does not count
-- trailing nils. Weak keys: the entry goes with its list.
local SIZES = setmetatable({}, { __mode = "k" })
LIST_MT.__len = function(l) return SIZES[l] or rawlen(l) end

list = setmetatable({}, { __call = function(_, t) return setmetatable(t or {}, LIST_MT) end })
function list.size(l) return #l end
function list.append(l, v)
  local n = #l + 1
  l[n] = v
  if v == nil or SIZES[l] then SIZES[l] = n end
end
function list.prepend(l, v) table.insert(l, 1, v) end
function list.insert(l, i, v) table.insert(l, i, v) end
function list.remove(l, i) return table.remove(l, i) end
function list.iterator(l) local i = 0 return function() i = i + 1 return l[i] end end
function list.clone(l) local c = list() for i = 1, #l do c[i] = l[i] end return c end
function list.concat(a, b) for i = 1, #b do a[#a + 1] = b[i] end end
function list.merge(a, b) local c = list.clone(a) list.concat(c, b) return c end
function list.take(l, n) local c = list() for i = 1, math.min(n, #l) do c[i] = l[i] end return c end
function list.drop(l, n) local c = list() for i = n + 1, #l do c[#c + 1] = l[i] end return c end
function list.trim(l, n) for i = #l, n, -1 do l[i] = nil end end

map = setmetatable({}, { __call = function(_, t) return setmetatable(t or {}, MAP_MT) end })
function map.size(m) local n = 0 for _ in pairs(m) do n = n + 1 end return n end
function map.pairs(m) return pairs(m) end
function map.iterator(m) return pairs(m) end
function map.keys(m) local k = nil return function() k = next(m, k) return k end end
function map.values(m) local k, v = nil, nil return function() k, v = next(m, k) return v end end
function map.remove(m, k) m[k] = nil end
function map.clone(m) local c = map() for k, v in pairs(m) do c[k] = v end return c end
-- As a server: where `f` gives false or nil, the value of `b` is kept.
function map.merge(a, b, f)
  local c = map.clone(a)
  for k, v in pairs(b) do
    c[k] = (c[k] ~= nil and type(f) == "function" and f(c[k], v)) or v
  end
  return c
end
-- The entries whose key only one of `a` and `b` holds (a false value counts as absent).
function map.diff(a, b)
  local c = map()
  for k, v in pairs(a) do if not b[k] then c[k] = v end end
  for k, v in pairs(b) do if not a[k] then c[k] = v end end
  return c
end

function math.sum(a, b) return a + b end
function math.product(a, b) return a * b end

-- The server's log functions: `info("%d records", n)` formats as string.format does and logs
-- through `aerospike:log` where the `aerospike` object exists (record UDFs).
local function logger(level)
  return function(m, ...)
    local text = string.format(m, ...)
    local as = rawget(_G, "aerospike")
    if as ~= nil then return as:log(level, text) end
  end
end
trace, debug, info, warn = logger(4), logger(3), logger(2), logger(1)

function __aero_list(t, n)
  if n ~= nil then SIZES[t] = n end
  return setmetatable(t, LIST_MT)
end
function __aero_map(t) return setmetatable(t, MAP_MT) end
