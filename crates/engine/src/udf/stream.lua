-- Stream UDFs: `f(stream, args...)` records map / filter / aggregate / reduce steps on the stream.
-- The server runs the steps up to and including the first reduce over its records; the client
-- runs the steps from that reduce on over the partial results of every node.
local Stream = {}
Stream.__index = Stream
local function add(s, step) s.steps[#s.steps + 1] = step return s end
function Stream:map(f) return add(self, { kind = "map", f = f }) end
function Stream:filter(f) return add(self, { kind = "filter", f = f }) end
function Stream:aggregate(init, f) return add(self, { kind = "aggregate", init = init, f = f }) end
function Stream:reduce(f) return add(self, { kind = "reduce", f = f }) end
-- Values grouped by `f(value)` into a map of lists, merged across nodes.
function Stream:groupby(f)
  local function group(m, v)
    local k = f and f(v) or nil
    local l = m[k] or list()
    list.append(l, v)
    m[k] = l
    return m
  end
  local function concat(a, b) return list.merge(a, b) end
  return self:aggregate(map(), group):reduce(function(a, b) return map.merge(a, b, concat) end)
end

local chain = {}
function chain.map(src, step)
  return function()
    local v = src()
    if v == nil then return nil end
    return step.f(v)
  end
end
function chain.filter(src, step)
  return function()
    for v in src do
      if step.f(v) then return v end
    end
    return nil
  end
end
-- As a real server: a numeric accumulator that reaches 1000 is sent on as it is, and the
-- aggregation goes on from the initial value.
function chain.aggregate(src, step)
  local done = false
  return function()
    if done then return nil end
    local acc = step.init
    for v in src do
      acc = step.f(acc, v)
      if type(acc) == "number" and acc >= 1000 then return acc end
    end
    done = true
    return acc
  end
end
function chain.reduce(src, step)
  local done = false
  return function()
    if done then return nil end
    done = true
    local acc = src()
    if acc == nil then return nil end
    for v in src do acc = step.f(acc, v) end
    return acc
  end
end

-- Runs the server (`client` false) or client half of `f` over `source`, calling `emit` per output.
function __aero_run_stream(f, client, source, emit, ...)
  local s = f(setmetatable({ steps = {} }, Stream), ...)
  local steps = type(s) == "table" and s.steps or {}
  local split = #steps + 1
  for i, step in ipairs(steps) do
    if step.kind == "reduce" then split = i break end
  end
  local first, last = 1, math.min(split, #steps)
  if client then first, last = split, #steps end
  local it = source
  for i = first, last do it = chain[steps[i].kind](it, steps[i]) end
  for v in it do emit(v) end
end

-- Records in a stream: bins as fields, metadata for the `record` functions kept aside.
local meta = setmetatable({}, { __mode = "k" })
function __aero_record(bins, m) meta[bins] = m return bins end
record = {}
function record.gen(r) return meta[r].gen end
function record.ttl(r) return meta[r].ttl end
function record.void_time(r) return meta[r].void_time end
function record.last_update_time(r) return meta[r].last_update_time end
function record.setname(r) return meta[r].setname end
function record.key(r) return meta[r].key end
function record.digest(r) return meta[r].digest end
function record.numbins(r) return #meta[r].bin_names end
function record.bin_names(r) return list.clone(meta[r].bin_names) end
