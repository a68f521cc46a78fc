"""``Policy.derive`` is the documented way to change a policy: the guide's example runs and
gives what its comment says, and the API reference lists ``Policy``."""

from __future__ import annotations

import re
from pathlib import Path

import aerospike_fluent as af

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_guides_derive_example_gives_what_it_says() -> None:
    guide = (DOCS / "guide" / "policies.md").read_text()
    (example,) = [b for b in re.findall(r"```python\n(.*?)```", guide, re.S) if ".derive(" in b]
    (said,) = re.findall(r"# (Policy\(.*\));", example)
    names: dict[str, object] = {"af": af}
    exec(example, names)
    assert repr(names["patient"]) == said
    assert names["base"] == af.Policy(total_timeout=0.5, read={"max_retries": 3})


def test_the_api_reference_lists_policy() -> None:
    reference = (DOCS / "reference" / "client.md").read_text()
    assert "::: aerospike_fluent.policy.Policy" in reference
