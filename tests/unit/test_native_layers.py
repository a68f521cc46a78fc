"""The native core's folders stand in the layers ``docs/internals/architecture.md`` gives them:
every ``crate::`` path in a folder names a folder of its own layer or one below."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parents[2]
SRC = ROOT / "crates" / "native" / "src"
TABLE = ROOT / "docs" / "internals" / "architecture.md"
ROW = re.compile(r"^\| (?P<layer>\d+) \| (?P<folders>[^|]+) \|")
FOLDER = re.compile(r"`(\w+)/`")
PATH = re.compile(r"crate::(\w+)")


def layers() -> dict[str, int]:
    text = TABLE.read_text()
    table = text.split("<!-- layers -->")[1].split("<!-- /layers -->")[0]
    found: dict[str, int] = {}
    for m in map(ROW.match, table.splitlines()):
        if m:
            for folder in FOLDER.findall(m["folders"]):
                found[folder] = int(m["layer"])
    return found


def test_every_folder_has_a_layer() -> None:
    folders = {p.name for p in SRC.iterdir() if p.is_dir()}
    assert folders, "no source folders found"
    assert folders == set(layers()), "the layer table and the source folders differ"


def test_no_folder_reaches_up() -> None:
    rank = layers()
    upward = []
    for f in sorted(SRC.rglob("*.rs")):
        home = f.relative_to(SRC).parts[0]
        if home not in rank:
            continue
        for n, line in enumerate(f.read_text().splitlines(), 1):
            for to in PATH.findall(line):
                if to in rank and rank[to] > rank[home]:
                    upward.append(f"{f.relative_to(SRC)}:{n}: {home} (layer {rank[home]}) -> {to}")
    assert upward == []
