"""Typed records: models written as records and read back as instances.

Dataclasses, pydantic models, attrs classes, msgspec Structs and TypedDicts.

Example:
    >>> @dataclass
    ... class User:
    ...     id: Annotated[str, Key]
    ...     name: str
    ...     email: Annotated[str, Bin("mail")]
    ...     version: Annotated[int, Generation] = 0
    >>> await users.put(User("u1", "Ann", "ann@example.com"))
    >>> ann = await users.key("u1").get(as_=User)

"""

from __future__ import annotations

from aerospike_fluent.models import codecs
from aerospike_fluent.models._mapping import TTL, Bin, Generation, Key, is_model, mapping_of
from aerospike_fluent.models.codecs import Codec, Codecs

__all__ = ["TTL", "Bin", "Codec", "Codecs", "Generation", "Key", "codecs", "is_model", "mapping_of"]
