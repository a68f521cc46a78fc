"""The command group: every command, and how errors become exit codes."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

import click

from aerospike_fluent.cli import importing, info, query, records, serve
from aerospike_fluent.cli.connection import group_connection_options
from aerospike_fluent.cli.output import INTERRUPTED, note
from aerospike_fluent.errors import AerospikeError


@click.group(context_settings={"max_content_width": 100})
@click.version_option(package_name="aerospike-fluent", prog_name="aerospike-fluent")
@group_connection_options
def cli() -> None:
    """Look at an Aerospike cluster, query it, move records in and out of files.

    The connection options are those of connect(): --host (or AEROSPIKE_HOST), --config (or
    AEROSPIKE_FLUENT_CONFIG), --user, TLS files. They go before the command name or after it.
    """


for _command in (
    info.command,
    query.command,
    importing.command,
    records.get,
    records.put,
    records.delete,
    serve.command,
):
    cli.add_command(_command)


def run(argv: Sequence[str] | None = None) -> int:
    """Run one command; return its exit code (1 for an error, 130 when interrupted)."""
    try:
        result = cli.main(
            args=list(argv) if argv is not None else None,
            prog_name="aerospike-fluent",
            standalone_mode=False,
        )
    except click.exceptions.Exit as done:
        return done.exit_code
    except click.ClickException as e:
        e.show()
        return e.exit_code
    except click.Abort:
        note("interrupted")
        return INTERRUPTED
    except AerospikeError as e:
        note(f"Error: {type(e).__name__}: {e}")
        return 1
    except BrokenPipeError:
        # The reader of stdout went away (``| head``): stop quietly.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return result if isinstance(result, int) else 0
