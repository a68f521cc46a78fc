"""Expressions rendered as AEL text (what :func:`aerospike_fluent.exp.parse` reads back)."""

from __future__ import annotations

from typing import Any

from aerospike_fluent.errors import InvalidArgumentError
from aerospike_fluent.exp import _ael_cdt_modify as cdt_modify
from aerospike_fluent.exp import _ael_family as family
from aerospike_fluent.exp import _core
from aerospike_fluent.exp._ael_lex import AEL_TYPE, name_text, quote
from aerospike_fluent.exp._ael_path import ctx_text, read_text
from aerospike_fluent.exp._core import Exp

META_RENDER = {
    "ttl": "ttl",
    "void_time": "voidTime",
    "last_update": "lastUpdate",
    "since_update": "sinceUpdate",
    "set_name": "setName",
    "record_size": "recordSize",
    "key_exists": "keyExists",
    "is_tombstone": "isTombstone",
}
_CMP_NAME = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
_ARITH_NAME = {"num_add": "+", "num_sub": "-", "num_mul": "*", "num_div": "/", "num_mod": "%"}
_INFIX = {
    "int_and": "&",
    "int_or": "|",
    "int_xor": "^",
    "int_lshift": "<<",
    "int_rshift": ">>>",
    "int_arshift": ">>",
}
_CALLS = {"int_count", "int_lscan", "int_rscan", "exclusive"}


def to_ael(e: Exp) -> str:
    """Render an expression as AEL text that :func:`parse` compiles back to the same plan.

    Raises:
        InvalidArgumentError: for nodes AEL text cannot express (nil, GeoJSON, create-contexts,
            non-literal path steps, ...).

    """
    kind, name, args = e._kind, e._name, e._args
    if kind == _core._LIT:
        return _literal(args[0])
    if kind == _core._BIN:
        return _bin_text(args[0], e._type)
    if kind == _core._LAZY:
        return args[1]  # type: ignore[no-any-return]
    if kind == _core._KEY:
        return "$.key()" if e._type is None else f"$.key().get(type: {AEL_TYPE[e._type]})"
    if kind == _core._CMP:
        return f"({to_ael(args[0])} {_CMP_NAME[name]} {to_ael(args[1])})"
    if kind == _core._NUM:
        return _num(name, args)
    if kind == _core._FN:
        return _fn(e, name, args)
    raise InvalidArgumentError(f"{name} has no AEL text form here")


def _num(name: str, args: tuple[Any, ...]) -> str:
    if name in _ARITH_NAME and len(args) > 1:
        return "(" + f" {_ARITH_NAME[name]} ".join(to_ael(a) for a in args) + ")"
    if name == "num_sub":
        return f"(-{to_ael(args[0])})"
    if name == "num_abs":
        return f"abs({to_ael(args[0])})"
    if name == "num_pow":
        return f"({to_ael(args[0])} ** {to_ael(args[1])})"
    if name in ("min", "max"):
        return f"{name}(" + ", ".join(to_ael(a) for a in args) + ")"
    raise InvalidArgumentError(f"{name} has no AEL text form here")


def _fn(e: Exp, name: str, args: tuple[Any, ...]) -> str:
    if name in ("and", "or"):
        return "(" + f" {name} ".join(to_ael(a) for a in args) + ")"
    if name == "not":
        return f"(not {to_ael(args[0])})"
    if name in META_RENDER:
        return f"$.{META_RENDER[name]}()"
    if name == "digest_modulo":
        return f"$.digestModulo({args[0]})"
    if name in ("num_floor", "num_ceil"):
        return f"{name[4:]}({to_ael(args[0])})"
    if name in ("to_int", "to_float"):
        return _cast_text(args[0], "asInt" if name == "to_int" else "asFloat")
    if name == "regex_compare":
        pattern, flags, value = args
        extra = f", {flags}" if flags else ""
        return f"regex({to_ael(value)}, {quote(pattern)}{extra})"
    if name.startswith(("bits.", "hlls.")):
        text = family.render(name, args, to_ael)
        if text is not None:
            return text
    if name.startswith(("lists.", "maps.")):
        text = cdt_modify.render(name, args, to_ael)
        if text is not None:
            return text
    if name in ("lists.size", "maps.size"):
        return _size_text(name, *args)
    if name.startswith(("lists.", "maps.")):
        return read_text(name, args, _plain_bin(args[-2], name))
    if name in ("bin_exists", "bin_type"):
        method = "exists" if name == "bin_exists" else "type"
        return f"{_bin_text(args[0], None)}.{method}()"
    if name in _INFIX:
        return "(" + f" {_INFIX[name]} ".join(to_ael(a) for a in args) + ")"
    if name == "int_not":
        return f"(~{to_ael(args[0])})"
    if name in _CALLS:
        return f"{name}(" + ", ".join(to_ael(a) for a in args) + ")"
    if name == "in_list":
        return f"({to_ael(args[0])} in {to_ael(args[1])})"
    if name == "cond":
        pairs = [f"{to_ael(args[i])} => {to_ael(args[i + 1])}" for i in range(0, len(args) - 1, 2)]
        return "when(" + ", ".join([*pairs, f"default => {to_ael(args[-1])}"]) + ")"
    if name == "let":
        defs = ", ".join(f"{d._args[0]} = {to_ael(d._args[1])}" for d in args[:-1])
        return f"let({defs}) then ({to_ael(args[-1])})"
    if name == "var":
        return "${" + str(args[0]) + "}"
    raise InvalidArgumentError(f"{name} has no AEL text form here")


def _plain_bin(base: object, name: str) -> str:
    if not isinstance(base, Exp) or base._kind != _core._BIN:
        raise InvalidArgumentError(f"{name} has an AEL text form only on a bin")
    return _bin_text(base._args[0], None)


def _cast_text(arg: Exp, cast: str) -> str:
    text = to_ael(arg)
    if arg._kind == _core._BIN and arg._type is None:
        return f"{text}.{cast}()"
    return f"({text}).{cast}()"


def _size_text(name: str, base: object, ctx: tuple[Any, ...]) -> str:
    designator = "[]" if name == "lists.size" else "{}"
    return f"{_plain_bin(base, name)}{ctx_text(ctx)}.{designator}.count()"


def _bin_text(name: str, type_: str | None) -> str:
    ref = f"$.{name_text(name)}"
    if type_ is None:
        return ref
    if type_ not in AEL_TYPE:
        raise InvalidArgumentError(f"a {type_} bin has no AEL text form")
    return f"{ref}.get(type: {AEL_TYPE[type_]})"


def _literal(node: tuple[Any, ...]) -> str:
    tag = node[0]
    if tag == "int_val":
        return str(node[1])
    if tag == "float_val":
        text = repr(float(node[1]))
        if text in ("inf", "-inf", "nan"):
            raise InvalidArgumentError(f"{text} has no AEL text form")
        return text
    if tag == "string_val":
        return quote(node[1])
    if tag == "bool_val":
        return "true" if node[1] else "false"
    if tag == "blob_val":
        return f"x'{node[1].hex()}'"
    if tag in ("list_val", "map_val"):
        return _constant(node[1])
    raise InvalidArgumentError(f"{tag} literals have no AEL text form")


def _constant(v: object) -> str:
    """Write a list or map constant (ints, floats, strings, bools, nested lists, maps)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return _literal(("float_val", v))
    if isinstance(v, str):
        return quote(v)
    if isinstance(v, bytes):
        return f"x'{v.hex()}'"
    if isinstance(v, list):
        return "[" + ", ".join(_constant(x) for x in v) + "]"
    if isinstance(v, dict):
        items = []
        for k, x in v.items():
            if isinstance(k, bool) or not isinstance(k, int | str):
                raise InvalidArgumentError("only int and str map keys have AEL text")
            items.append(f"{_constant(k)}: {_constant(x)}")
        return "{" + ", ".join(items) + "}"
    raise InvalidArgumentError(f"a {type(v).__name__} has no AEL constant form")
