"""The fields of a model class, whatever declared it.

Dataclasses, pydantic v2, attrs, msgspec or a TypedDict; read once per class.
"""

from __future__ import annotations

import dataclasses
import sys
import typing
from typing import Any, Final, Literal, NamedTuple

Kind = Literal["dataclass", "pydantic", "attrs", "msgspec", "typeddict"]
MISSING: Final = object()
"""A field without a default."""


class Field(NamedTuple):
    name: str
    annotation: Any
    """The declared type, ``Annotated`` metadata kept."""
    default: Any
    """The default value, ``MISSING``, or (``factory=True``) what makes it."""
    factory: bool


def kind_of(cls: object) -> Kind | None:
    """Which library declared ``cls`` as a model, if any."""
    if not isinstance(cls, type):
        return None
    if dataclasses.is_dataclass(cls):
        return "dataclass"
    if hasattr(cls, "__attrs_attrs__"):
        return "attrs"
    if hasattr(cls, "model_fields") and hasattr(cls, "model_validate"):
        return "pydantic"
    if hasattr(cls, "__struct_fields__"):
        return "msgspec"
    if typing.is_typeddict(cls):
        return "typeddict"
    return None


def fields_of(cls: type, kind: Kind) -> list[Field]:
    """Return the fields of ``cls`` in declaration order."""
    hints = typing.get_type_hints(
        cls, globalns=vars(sys.modules[cls.__module__]), include_extras=True
    )
    if kind == "dataclass":
        out = []
        for f in dataclasses.fields(cls):
            if f.default is not dataclasses.MISSING:
                out.append(Field(f.name, hints[f.name], f.default, False))
            elif f.default_factory is not dataclasses.MISSING:
                out.append(Field(f.name, hints[f.name], f.default_factory, True))
            else:
                out.append(Field(f.name, hints[f.name], MISSING, False))
        return out
    if kind == "attrs":
        import attrs

        out = []
        for a in attrs.fields(cls):
            if isinstance(a.default, attrs.Factory):  # type: ignore[arg-type]
                out.append(Field(a.name, hints[a.name], a.default.factory, True))
            elif a.default is attrs.NOTHING:
                out.append(Field(a.name, hints[a.name], MISSING, False))
            else:
                out.append(Field(a.name, hints[a.name], a.default, False))
        return out
    if kind == "pydantic":
        out = []
        for name, info in cls.model_fields.items():  # type: ignore[attr-defined]
            if info.default_factory is not None:
                out.append(Field(name, hints[name], info.default_factory, True))
            elif info.is_required():
                out.append(Field(name, hints[name], MISSING, False))
            else:
                out.append(Field(name, hints[name], info.default, False))
        return out
    if kind == "msgspec":
        import msgspec

        out = []
        for info in msgspec.structs.fields(cls):
            if info.default_factory is not msgspec.NODEFAULT:
                out.append(Field(info.name, hints[info.name], info.default_factory, True))
            elif info.default is msgspec.NODEFAULT:
                out.append(Field(info.name, hints[info.name], MISSING, False))
            else:
                out.append(Field(info.name, hints[info.name], info.default, False))
        return out
    required = getattr(cls, "__required_keys__", frozenset(hints))
    return [
        Field(name, hint, MISSING if name in required else None, False)
        for name, hint in hints.items()
    ]
