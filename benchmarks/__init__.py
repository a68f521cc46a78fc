"""Benchmarks: this SDK against its peers and a raw Rust ceiling (``python -m benchmarks``)."""
