"""``latest.png``: two heat maps (speed xC client, speed xraw Rust), clients x workloads."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any


def write(path: Path, doc: dict[str, Any], names: dict[str, str]) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.colors import TwoSlopeNorm
    except ImportError:
        return None
    workloads = [w["name"] for w in doc["workloads"]]
    cids = [c for c, v in doc["clients"].items() if v["status"] == "ok"]
    fig, axes = plt.subplots(1, 2, figsize=(2 + 1.1 * len(workloads), 1.5 + 0.9 * len(cids)))
    for ax, key, label in zip(axes, ("vs_c", "vs_rust"), ("x C client", "x raw Rust"), strict=True):
        grid = []
        for cid in cids:
            row = []
            for w in doc["workloads"]:
                v = w["results"].get(cid, {}).get(key)
                row.append(math.log2(v) if v else float("nan"))
            grid.append(row)
        im = ax.imshow(grid, cmap="RdYlGn", norm=TwoSlopeNorm(0.0, -2.0, 2.0), aspect="auto")
        for y, row in enumerate(grid):
            for x, v in enumerate(row):
                if not math.isnan(v):
                    ax.text(x, y, f"{2**v:.2f}", ha="center", va="center", fontsize=7)
        ax.set_xticks(range(len(workloads)), workloads, rotation=45, ha="right", fontsize=8)
        ax.set_yticks(range(len(cids)), [names.get(c, c) for c in cids], fontsize=8)
        ax.set_title(f"speed {label} (>1 faster, green)")
        fig.colorbar(im, ax=ax, label="log2 ratio", shrink=0.8)
    m = doc["meta"]
    fig.suptitle(f"aerospike_fluent benchmarks — {m['date']} — {m['server']}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
