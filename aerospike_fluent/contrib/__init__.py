"""Integrations with monitoring systems, each behind an optional extra.

- :mod:`aerospike_fluent.contrib.prometheus` (``pip install aerospike-fluent[prometheus]``)
- :mod:`aerospike_fluent.contrib.otel` (``pip install aerospike-fluent[otel]``)
"""
