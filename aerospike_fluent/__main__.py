"""``python -m aerospike_fluent``: the ``aerospike-fluent`` command line."""

import sys

from aerospike_fluent.cli import main

sys.exit(main())
