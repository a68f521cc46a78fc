"""A model's mapping to a record, worked out once per class and codec set.

Field to bin name, the key, generation and TTL fields, codecs and nested models; and the
compiled functions that turn an instance into bins and a record into an instance.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, Literal, get_args, get_origin

from aerospike_fluent import _native
from aerospike_fluent._native import Record
from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError, ModelError
from aerospike_fluent.models._fields import MISSING, Field, Kind, fields_of, kind_of
from aerospike_fluent.models.codecs import Codec, Codecs

MAX_BIN_NAME: Final = 15


@dataclasses.dataclass(frozen=True, slots=True)
class Bin:
    """``Annotated[T, Bin("name")]``: the field is stored in bin ``name``."""

    name: str


class _Role:
    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"af.models.{self._name}"


Key: Final = _Role("Key")
"""``Annotated[str, Key]``: the field is the record's user key (stored with it)."""
Generation: Final = _Role("Generation")
"""``Annotated[int, Generation]``: filled with the record's generation when read."""
TTL: Final = _Role("TTL")
"""``Annotated[int | None, TTL]``: filled with the record's TTL when read."""

_PLAIN: Final = (int, str, float, bytes, bool)
_STORED: Final = frozenset({int, str, float, bytes, bool, list, dict, type(None)})


@dataclasses.dataclass(frozen=True, slots=True)
class Spec:
    """How one field is stored."""

    name: str
    bin: str
    default: Any
    factory: bool
    plain: type | None
    """A type the server stores as is: the value read is checked against it."""
    decode: Callable[[Any], Any] | None
    encode: Callable[[Any], Any] | None


class Mapping_:
    """A model class's mapping (see :func:`mapping_of`)."""

    __slots__ = (
        "bins",
        "cls",
        "codecs",
        "decode_bins",
        "generation",
        "key",
        "kind",
        "plan",
        "specs",
        "ttl",
    )

    def __init__(self, cls: type, codecs: Codecs) -> None:
        kind = kind_of(cls)
        if kind is None:
            raise InvalidTypeError(
                f"{cls!r} is not a model: use a dataclass, a pydantic model, an attrs class, a "
                "msgspec Struct or a TypedDict"
            )
        self.cls, self.kind, self.codecs = cls, kind, codecs
        self.key = self.generation = self.ttl = None
        specs: list[Spec] = []
        for field in fields_of(cls, kind):
            role = _role(field)
            if role is Key:
                self.key = field.name
            elif role is Generation:
                self.generation = field.name
            elif role is TTL:
                self.ttl = field.name
            else:
                specs.append(_spec(cls, field, codecs))
        seen: dict[str, str] = {}
        for spec in specs:
            if spec.bin in seen:
                raise InvalidArgumentError(
                    f"{cls.__name__}: fields {seen[spec.bin]!r} and {spec.name!r} both map to "
                    f"bin {spec.bin!r}"
                )
            seen[spec.bin] = spec.name
        self.specs = tuple(specs)
        self.bins = tuple(s.bin for s in specs)
        self.decode_bins = _compile_decoder(cls, self.specs)
        self.plan = _native_plan(self)

    def decode_many(self, records: list[Any], user_keys: Sequence[Any] | None = None) -> list[Any]:
        """Return an instance per record (``None`` for ``None``).

        Built natively where records fit plainly; the rest are decoded, or explained, here.
        """
        out: list[Any] | None = None
        if self.plan is not None:
            try:
                out = _native.records_as(records, self.plan)
            except Exception:  # explained record by record below
                out = None
        if out is None:
            out = [None] * len(records)
        for i, made in enumerate(out):
            if made is None and records[i] is not None:
                out[i] = self.decode(records[i], user_keys[i] if user_keys else None)
        return out

    def encode(self, obj: Any) -> dict[str, Any]:
        """Return the bins of ``obj``."""
        get = obj.get if self.kind == "typeddict" else functools.partial(getattr, obj)
        out: dict[str, Any] = {}
        for spec in self.specs:
            value = get(spec.name, MISSING) if self.kind == "typeddict" else get(spec.name)
            if value is MISSING:
                continue
            if value is not None and spec.encode is not None:
                try:
                    value = spec.encode(value)
                except (InvalidArgumentError, InvalidTypeError):
                    raise
                except Exception as e:
                    raise ModelError(
                        f"{self.cls.__name__}.{spec.name}: cannot encode {value!r}: {e}"
                    ) from e
            elif type(value) not in _STORED:  # a numpy scalar in an int field, say
                value = self.codecs.encode(value, f"{self.cls.__name__}.{spec.name}")
            out[spec.bin] = value
        return out

    def user_key(self, obj: Any) -> Any:
        """Return the key field's value of ``obj`` (``None`` when the model has none)."""
        if self.key is None:
            return None
        if self.kind == "typeddict":
            return obj.get(self.key)
        return getattr(obj, self.key)

    def decode(self, record: Record, user_key: Any = None) -> Any:
        """Return an instance from ``record``; ``user_key`` when the record carries none."""
        try:
            values = self.decode_bins(record.bins)
        except _Unfit as e:
            raise ModelError(
                f"record {_key_text(record, user_key)} does not fit {self.cls.__name__}: "
                f"{e.args[0]}"
            ) from e.__cause__
        if self.key is not None:
            stored = record.user_key if record.key is not None else None
            values[self.key] = stored if stored is not None else user_key
        if self.generation is not None:
            values[self.generation] = record.generation
        if self.ttl is not None:
            values[self.ttl] = record.ttl
        return self._make(values, lambda: f"record {_key_text(record, user_key)}")

    def decode_nested(self, value: Any) -> Any:
        """Return an instance from a map stored in a field of another model."""
        if not isinstance(value, dict):
            raise TypeError(
                f"a nested {self.cls.__name__} is stored as a map, not {type(value).__name__}"
            )
        return self._make(self.decode_bins(value), lambda: "a nested map")

    def _make(self, values: dict[str, Any], where: Callable[[], str]) -> Any:
        cls = self.cls
        try:
            if self.kind == "pydantic":
                return cls.model_validate(values)  # type: ignore[attr-defined]
            if self.kind == "typeddict":
                return values
            return cls(**values)
        except Exception as e:
            raise ModelError(f"{where()} does not fit {cls.__name__}: {e}") from e


_KINDS: Final = {int: "int", float: "float", str: "str", bytes: "bytes", bool: "bool"}


def _native_plan(m: Mapping_) -> _native.ModelPlan | None:
    """Return the native plan of a model whose fields take their bins' values as they are."""
    if any(spec.decode is not None for spec in m.specs):
        return None
    cls = m.cls
    how: Literal["dict", "kwargs", "call"]
    if m.kind == "dataclass":
        plain = (
            "__slots__" not in vars(cls)
            and not hasattr(cls, "__post_init__")
            and all(f.init for f in dataclasses.fields(cls))
        )
        make, how = cls, "dict" if plain else "kwargs"
    elif m.kind == "pydantic":
        # the validator itself: model_validate's Python wrapper costs a call per record
        make, how = cls.__pydantic_validator__.validate_python, "call"  # type: ignore[attr-defined]
    elif m.kind == "typeddict":
        make, how = dict, "call"
    else:
        make, how = cls, "kwargs"
    defaults: dict[str, Any] = {}
    fields = []
    for spec in m.specs:
        # the classes fill their own defaults, but for the instance made without __init__; a
        # factory runs per instance, so a record without that bin takes the Python path
        required = spec.default is MISSING or (how == "dict" and spec.factory)
        if how == "dict" and not required:
            defaults[spec.name] = spec.default
        kind = "any" if spec.plain is None else _KINDS[spec.plain]
        fields.append((spec.bin, spec.name, kind, required))
    return _native.ModelPlan(make, how, fields, defaults, m.key, m.generation, m.ttl)


class _Unfit(Exception):
    """A bin value that does not fit its field (message names both)."""


def _key_text(record: Record, user_key: Any) -> str:
    key = record.key
    if key is not None:
        ns, set_name, uk, digest = key
        if uk is None:
            uk = user_key if user_key is not None or digest is None else digest.hex()
        shown = uk
        return f"{ns}/{set_name}/{shown!r}"
    return repr(user_key)


def _role(field: Field) -> object:
    for meta in getattr(field.annotation, "__metadata__", ()):
        if meta is Key or meta is Generation or meta is TTL:
            return meta
    return None


def _spec(cls: type, field: Field, codecs: Codecs) -> Spec:
    bin_name = field.name
    codec: Codec[Any] | None = None
    annotation = field.annotation
    for meta in getattr(annotation, "__metadata__", ()):
        if isinstance(meta, Bin):
            bin_name = meta.name
        elif isinstance(meta, Codec):
            codec = meta
    if not bin_name or len(bin_name.encode()) > MAX_BIN_NAME:
        raise InvalidArgumentError(
            f"{cls.__name__}.{field.name}: bin name {bin_name!r} is longer than "
            f"{MAX_BIN_NAME} bytes; give it a shorter one with Annotated[..., Bin('name')]"
        )
    if "\0" in bin_name:
        raise InvalidArgumentError(
            f"{cls.__name__}.{field.name}: bin name {bin_name!r} holds a NUL character; "
            "give it another with Annotated[..., Bin('name')]"
        )
    inner = _without_none(_strip(annotation))
    where = f"{cls.__name__}.{field.name}"
    encode, decode = _converters(inner, codec, codecs, where)
    # pydantic validates (and coerces) the values itself
    plain = inner if inner in _PLAIN and codec is None and kind_of(cls) != "pydantic" else None
    return Spec(field.name, bin_name, field.default, field.factory, plain, decode, encode)


def _strip(annotation: Any) -> Any:
    while get_origin(annotation) is typing.Annotated:
        annotation = annotation.__origin__
    return annotation


def _without_none(tp: Any) -> Any:
    if get_origin(tp) in (typing.Union, types.UnionType):
        args = [a for a in get_args(tp) if a is not type(None)]
        if len(args) == 1:
            return _strip(args[0])
    return tp


def _converters(
    tp: Any, codec: Codec[Any] | None, codecs: Codecs, where: str
) -> tuple[Callable[[Any], Any] | None, Callable[[Any], Any] | None]:
    """(encode, decode) of a field of type ``tp``; ``None`` where values pass as they are."""
    if codec is None and isinstance(tp, type):
        codec = codecs.find(tp)
    if codec is not None:
        return codec.encode, codec.decode
    origin = get_origin(tp)
    if isinstance(tp, type) and kind_of(tp) is not None:
        nested = mapping_of(tp, codecs)
        return nested.encode, nested.decode_nested
    if origin in (list, tuple, set, frozenset):
        args = [a for a in get_args(tp) if a is not Ellipsis]
        return _collection(origin, _strip(args[0]) if args else Any, codecs, where)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return (lambda v: v.value), tp
    if tp in (tuple, set, frozenset):
        return list, tp
    if tp in _PLAIN:
        return None, None
    return (lambda v: codecs.encode(v, where)), None


def _collection(
    origin: type, item: Any, codecs: Codecs, where: str
) -> tuple[Callable[[Any], Any] | None, Callable[[Any], Any] | None]:
    """(encode, decode) of a list, tuple or set field whose items are of type ``item``."""
    item_encode, item_decode = _converters(item, None, codecs, where)
    if item_encode is None:
        encode: Callable[[Any], Any] | None = None if origin is list else list
    else:
        encode = lambda v: [item_encode(i) for i in v]  # noqa: E731
    if item_decode is None:
        decode: Callable[[Any], Any] | None = None if origin is list else origin
    else:
        decode = lambda v: origin(item_decode(i) for i in v)  # noqa: E731
    return encode, decode


def _compile_decoder(
    cls: type, specs: tuple[Spec, ...]
) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    """Generate (once per model) the function from a record's bins to the field values."""
    lines = ["def decode(b):", "    out = {}"]
    env: dict[str, Any] = {"MISSING": MISSING, "_missing": _missing, "_check": _check}
    env["_unfit"] = _unfit
    for i, spec in enumerate(specs):
        env[f"spec{i}"] = spec
        env[f"default{i}"] = spec.default
        lines.append(f"    v = b.get(spec{i}.bin, MISSING)")
        lines.append("    if v is MISSING or v is None:")
        if spec.default is MISSING:
            lines.append(f"        v = _missing(spec{i}) if v is MISSING else None")
        elif spec.factory:
            lines.append(f"        v = default{i}() if v is MISSING else None")
        else:
            lines.append(f"        v = default{i} if v is MISSING else None")
        if spec.plain is not None:
            env[f"t{i}"] = spec.plain
            lines.append(f"    elif type(v) is not t{i}:")
            lines.append(f"        v = _check(spec{i}, v)")
        elif spec.decode is not None:
            env[f"dec{i}"] = spec.decode
            lines.append("    else:")
            lines.append("        try:")
            lines.append(f"            v = dec{i}(v)")
            lines.append("        except Exception as e:")
            lines.append(f"            _unfit(spec{i}, v, e)")
        lines.append(f"    out[spec{i}.name] = v")
    lines.append("    return out")
    exec("\n".join(lines), env)
    decode: Callable[[Mapping[str, Any]], dict[str, Any]] = env["decode"]
    return decode


def _missing(spec: Spec) -> Any:
    raise _Unfit(f"field {spec.name!r} (bin {spec.bin!r}) is missing")


def _unfit(spec: Spec, value: Any, e: Exception) -> Any:
    raise _Unfit(
        f"field {spec.name!r} (bin {spec.bin!r}) holds {type(value).__name__} {value!r:.40}: {e}"
    ) from e


def _check(spec: Spec, value: Any) -> Any:
    if spec.plain is float and type(value) is int:
        return float(value)
    if spec.plain is int and type(value) is bool:
        return int(value)
    assert spec.plain is not None
    raise _Unfit(
        f"field {spec.name!r} (bin {spec.bin!r}) holds {type(value).__name__} {value!r:.40}, "
        f"not {spec.plain.__name__}"
    )


_MAPPINGS: dict[tuple[type, Codecs], Mapping_] = {}


def mapping_of(cls: type, codecs: Codecs) -> Mapping_:
    """Return the mapping of ``cls`` under ``codecs`` (built on first use, then kept)."""
    try:
        return _MAPPINGS[cls, codecs]
    except KeyError:
        mapping = _MAPPINGS[cls, codecs] = Mapping_(cls, codecs)
        return mapping


def to_bins(bins: object, codecs: Codecs, dict_codecs: Codecs | None) -> object:
    """Return the bins a write sends: a model's, or a dict's with registered types encoded."""
    if type(bins) is not dict and is_model(bins):
        return mapping_of(type(bins), codecs).encode(bins)
    if dict_codecs is not None:
        return dict_codecs.encode_bins(bins)
    return bins


def is_model(obj: object) -> bool:
    """Whether ``obj`` is an instance of a model class (a plain dict is not)."""
    return not isinstance(obj, dict) and kind_of(type(obj)) is not None


__all__ = ["TTL", "Bin", "Generation", "Key", "Kind", "Mapping_", "is_model", "mapping_of"]
