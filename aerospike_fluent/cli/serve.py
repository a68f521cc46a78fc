"""``serve``: the embedded server in the foreground (``python -m aerospike_fluent.server``)."""

from __future__ import annotations

import click

from aerospike_fluent import server


@click.command(
    name="serve",
    add_help_option=False,
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
)
@click.pass_context
def command(ctx: click.Context) -> None:
    """Run the embedded in-memory server until Ctrl-C (serve --help lists its options)."""
    code = server.main(ctx.args, prog="aerospike-fluent serve")
    if code:
        raise click.exceptions.Exit(code)
