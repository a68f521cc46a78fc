-- Stream UDFs of the aggregation tests (tests/integration and tests/compat).
local function one(rec) return 1 end
local function add(a, b) return a + b end

function count(s)
  return s:map(one):reduce(add)
end

function sum_bin(s, bin)
  return s:map(function(rec) return rec[bin] end):reduce(add)
end

function evens(s)
  return s:filter(function(rec) return rec.n % 2 == 0 end):map(function(rec) return rec.n end)
end

function by_group(s)
  local function tally(groups, rec)
    groups[rec.group] = (groups[rec.group] or 0) + 1
    return groups
  end
  local function merge(a, b)
    return map.merge(a, b, function(x, y) return x + y end)
  end
  return s:aggregate(map(), tally):reduce(merge)
end

function boom(s)
  return s:map(function(rec) error("kaboom") end)
end

function values_of(s, bin)
  return s:map(function(rec) return rec[bin] end)
end

function stop_at(s, k)
  return s:map(function(rec) if rec.n == k then return nil end return rec.n end)
end

function count_each(s)
  return s:aggregate(0, function(a, rec) return a + 1 end)
end

function slow_count(s, turns)
  local function busy(rec)
    local i = 0
    while i < turns do i = i + 1 end
    return 1
  end
  return s:map(busy):reduce(add)
end

function endless(s)
  return s:map(function(rec) while true do end end)
end

-- The server's library: groupby, math.sum and the log functions.
function grouped_n(s)
  return s:map(function(rec)
    info("record %d of group %s", rec.n, rec.group)
    return map{group = rec.group, n = rec.n}
  end):groupby(function(v) return v.group end)
end

function total_n(s)
  return s:map(function(rec) return rec.n end):reduce(math.sum)
end
