//! The Lua `bytes` API, checked from Lua: each family with its edge cases, against the
//! behaviour of the server's `bytes` module (mod-lua).

use super::run::{message, new_lua};

/// Runs `code` (with `eq(a, b)` to compare) in a fresh UDF Lua state; panics on a Lua error.
fn check(code: &str) {
    let lua = new_lua().unwrap();
    let prelude = r##"
        function eq(got, want, what)
          if got ~= want then
            error((what or "value") .. ": got " .. tostring(got) .. ", want " .. tostring(want), 2)
          end
        end
        function count(...) return select('#', ...) end
        function fails(f, want)
          local ok, e = pcall(f)
          assert(not ok, "expected an error")
          if not string.find(e, want, 1, true) then error("error '" .. e .. "' lacks '" .. want .. "'", 2) end
        end
    "##;
    lua.load(prelude).exec().unwrap();
    if let Err(e) = lua.load(code).set_name("@check").exec() {
        panic!("{}", message(&e));
    }
}

#[test]
fn the_constructor_sets_a_capacity_and_no_size() {
    check(
        r##"
        local b = bytes(10)
        eq(type(b), "userdata")
        eq(bytes.size(b), 0, "size")
        eq(b[1], nil, "unwritten byte")
        eq(bytes.size(bytes()), 0)
        eq(bytes.size(bytes(nil)), 0)
        eq(bytes(1, 2), nil, "two arguments")
        eq(getmetatable(bytes), bytes)
        fails(function() return bytes({}) end, "number expected, got table")
        "##,
    );
}

#[test]
fn the_length_operator_is_always_zero_as_on_the_server() {
    // Lua passes `__len` two arguments and the server's size function wants exactly one.
    check(
        r##"
        local b = bytes(0)
        bytes.append_string(b, "abc")
        eq(bytes.size(b), 3)
        eq(#b, 0, "#b")
        eq(bytes.size(), 0, "no argument")
        eq(bytes.size(b, 1), 0, "two arguments")
        "##,
    );
}

#[test]
fn set_size_only_checks_the_capacity() {
    check(
        r##"
        local b = bytes(4)
        eq(bytes.set_size(b, 4), true)
        eq(bytes.set_size(b, 0), true)
        eq(bytes.set_size(b, 5), false, "past the capacity")
        eq(bytes.set_size(b, -1), false, "negative")
        eq(bytes.set_size(b), false, "one argument")
        eq(bytes.size(b), 0, "size unchanged")
        "##,
    );
}

#[test]
fn types_default_to_blob_and_zero_is_refused() {
    check(
        r##"
        local b = bytes()
        eq(bytes.get_type(b), 4)
        eq(bytes.set_type(b, 7), true)
        eq(bytes.get_type(b), 7)
        eq(bytes.get_type(b, "extra"), 7)
        eq(bytes.set_type(b, 0), false)
        eq(bytes.set_type(b), false)
        eq(bytes.get_type(b), 7)
        eq(count(bytes.get_type()), 0, "no argument gives nothing")
        eq(bytes.get_type(bytes.get_bytes(b, 1, 0)), 4, "get_bytes makes a blob")
        "##,
    );
}

#[test]
fn indexing_reads_and_writes_single_bytes_one_based() {
    check(
        r##"
        local b = bytes(0)
        b[1] = 5
        eq(bytes.size(b), 1)
        eq(b[1], 5)
        eq(b[0], nil, "index 0")
        eq(b[2], nil, "past the size")
        b[2] = 256
        b[2] = -1
        eq(bytes.size(b), 1, "out-of-range values are ignored")
        eq(bytes.set_byte(b, 4, 9), true, "a write past the end grows it")
        eq(bytes.size(b), 4)
        eq(b[3], 0, "the gap is zeros")
        eq(bytes.set_byte(b, 0, 1), false)
        eq(bytes.set_byte(b, 1, 256), false)
        eq(bytes.set_byte(b, 2^32 + 1, 1), false, "position past u32")
        eq(bytes.get_byte(b, 4), 9)
        eq(b["2"], 0, "numeric strings are numbers")
        eq(b[4.0], 9, "integral floats are integers")
        fails(function() return b[1.5] end, "number has no integer representation")
        fails(function() return b.size end, "bad argument #2 to 'index' (number expected, got string)")
        eq(count(bytes.get_byte(b)), 0, "one argument gives nothing")
        eq(count(bytes.get_byte(b, 9)), 0, "past the size gives nothing")
        "##,
    );
}

#[test]
fn fixed_width_integers_in_both_byte_orders() {
    check(
        r##"
        local b = bytes(0)
        eq(bytes.append_int16(b, 0x1234), true)
        eq(b[1], 0x12) eq(b[2], 0x34)
        eq(bytes.get_int16_le(b, 1), 0x3412)
        eq(bytes.append_int16_le(b, -2), true)
        eq(bytes.get_int16_le(b, 3), -2)
        eq(bytes.get_int16_be(b, 3), -257)
        eq(bytes.append_int16(b, 32768), false)
        eq(bytes.append_int16(b, -32769), false)
        eq(bytes.append_int32_be(b, -2147483648), true)
        eq(bytes.get_int32(b, 5), -2147483648)
        eq(bytes.append_int32(b, 2147483648), false)
        eq(bytes.append_int64(b, math.mininteger), true)
        eq(bytes.get_int64(b, 9), math.mininteger)
        eq(bytes.append_int64_le(b, 1), true)
        eq(b[17], 1)
        eq(bytes.get_int64_le(b, 17), 1)
        eq(bytes.size(b), 24)
        eq(count(bytes.get_int64(b, 18)), 0, "a read past the size gives nothing")
        eq(bytes.set_int32_le(b, 23, 7), true, "a write past the end grows it")
        eq(bytes.size(b), 26)
        eq(bytes.get_int32_le(b, 23), 7)
        eq(bytes.set_int16(b, 1, 40000), false)
        eq(bytes.set_int16_be(b, 0, 1), false)
        eq(bytes.set_int64_be(b, 1, -1), true)
        eq(bytes.get_int64(b, 1), -1)
        eq(bytes.append_int32(b), false, "one argument")
        "##,
    );
}

#[test]
fn var_ints_are_written_within_the_capacity_without_growing_the_size() {
    check(
        r##"
        local b = bytes(0)
        eq(bytes.append_var_int(b, 300), 2)
        eq(bytes.size(b), 0, "size unchanged, as on the server")
        local v, n = bytes.get_var_int(b, 1)
        eq(v, 300) eq(n, 2)
        eq(bytes.append_byte(b, 1), true, "the next append overwrites it")
        v, n = bytes.get_var_int(b, 1)
        eq(v, 1) eq(n, 1)
        eq(bytes.set_var_int(b, 3, 127), 1)
        eq(bytes.set_var_int(b, 3, -1), 5, "negative values take five bytes")
        v, n = bytes.get_var_int(b, 3)
        eq(v, 4294967295) eq(n, 5)
        eq(bytes.append_var_int(b, 2147483648), 0, "past i32")
        eq(bytes.set_var_int(b, 0, 1), 0, "position 0")
        eq(bytes.set_var_int(b, 1), 0, "two arguments")
        eq(count(bytes.get_var_int(b, 0)), 0)
        eq(bytes.size(b), 1)
        "##,
    );
}

#[test]
fn strings_go_in_and_come_out_raw() {
    check(
        r##"
        local b = bytes(0)
        eq(bytes.append_string(b, "abc"), true)
        eq(bytes.append_string(b, ""), false, "empty")
        eq(bytes.append_string(b, 12), true, "numbers are strings")
        eq(bytes.get_string(b, 1, 5), "abc12")
        eq(bytes.set_string(b, 2, "\255\0"), true)
        eq(bytes.get_string(b, 1, 3), "a\255\0")
        eq(bytes.get_string(b, 1, 0), "")
        eq(bytes.get_string(b, 5, 4), "2\0\0\0", "reads past the size see the buffer, then zeros")
        eq(count(bytes.get_string(b, 0, 1)), 0)
        eq(count(bytes.get_string(b, 1, -1)), 0)
        eq(count(bytes.get_string(b, 1)), 0)
        eq(bytes.set_string(b, 10, ""), true)
        eq(bytes.size(b), 9, "an empty write at 10 still reaches 9")
        eq(bytes.set_string(b, 1, nil), false)
        fails(function() return bytes.append_string(b, {}) end, "bad argument #2 to 'append_string' (string expected, got table)")
        "##,
    );
}

#[test]
fn bytes_copy_between_values() {
    check(
        r##"
        local v = bytes(0)
        bytes.append_string(v, "xyz")
        local b = bytes(0)
        eq(bytes.append_bytes(b, v, 2), true)
        eq(bytes.get_string(b, 1, bytes.size(b)), "xy")
        eq(bytes.append_bytes(b, v, 99), true, "n is capped at the source size")
        eq(bytes.get_string(b, 1, bytes.size(b)), "xyxyz")
        eq(bytes.append_bytes(b, v, -1), false)
        eq(bytes.append_bytes(b, b, 5), true, "a value can append itself")
        eq(bytes.size(b), 10)
        eq(bytes.set_bytes(b, 2, v, 3), true)
        eq(bytes.get_string(b, 1, 4), "xxyz")
        local fresh = bytes(0)
        eq(bytes.set_bytes(fresh, 1, v, 4), false, "n past the source needs room already there")
        eq(bytes.set_bytes(b, 1, v, 4), true, "which a big enough target has")
        eq(bytes.get_string(b, 1, 4), "xyz\0")
        eq(bytes.set_bytes(b, 0, v, 1), false)
        eq(bytes.set_bytes(b, 1, v), false, "three arguments")
        local part = bytes.get_bytes(b, 2, 2)
        eq(bytes.size(part), 2)
        eq(bytes.get_string(part, 1, 2), "yz")
        eq(count(bytes.get_bytes(b, 0, 1)), 0)
        fails(function() return bytes.append_bytes(b, "s", 1) end, "bad argument #2 to 'append_bytes' (userdata expected, got string)")
        fails(function() return bytes.size(5) end, "bad argument #1 to 'size' (userdata expected, got number)")
        fails(function() return bytes.size(list()) end, "userdata expected, got table")
        "##,
    );
}

#[test]
fn tostring_is_hex_and_equality_is_identity() {
    check(
        r##"
        eq(tostring(bytes(8)), "Bytes()")
        local b = bytes(0)
        bytes.append_byte(b, 1)
        bytes.append_byte(b, 0xab)
        eq(tostring(b), "01 AB")
        eq(b == b, true)
        local c = bytes(0)
        bytes.append_byte(c, 1)
        bytes.append_byte(c, 0xab)
        eq(b == c, false, "no __eq: distinct values differ")
        "##,
    );
}
