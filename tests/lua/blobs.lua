-- Record UDFs over a blob bin `b` (integration and compat suites): Lua works on `bytes` values.

-- Overwrites the first byte, appends a big-endian int32; writes the bin back and returns it.
function patch(rec)
  local b = rec.b
  b[1] = 0x41
  bytes.append_int32(b, 258)
  rec.b = b
  aerospike:update(rec)
  return rec.b
end

-- Writes the bin back unchanged and describes what Lua saw.
function rewrite(rec)
  rec.b = rec.b
  aerospike:update(rec)
  return tostring(rec.b) .. "|" .. type(rec.b) .. "|" .. bytes.size(rec.b)
end

-- A bytes argument, returned in a list with its size and type.
function describe(rec, b)
  return list{b, bytes.size(b), bytes.get_type(b)}
end

-- New bytes (string then 0xff) into bin `m`, returned in a list with its type.
function make(rec, s)
  local b = bytes(4)
  bytes.append_string(b, s)
  bytes.append_byte(b, 0xff)
  rec.m = b
  aerospike:update(rec)
  return list{b, bytes.get_type(b)}
end
