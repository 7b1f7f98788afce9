"""The CLI commands, one module per `bonsai-git` command, each a thin `run(...)` over the library.

Each `run` takes plain arguments (paths, flags, already-parsed option values) and an `echo` to write
through (click.echo in the CLI; common.Echo says the shape; `hook` prints for itself), and returns the exit code (0 done,
1 warnings or stale); refusals and failures are raised as BonsaiError, which cli.BonsaiGroup maps
to exit codes.  No click here: option parsing, usage errors and the error->exit mapping stay in
cli.py.  Modules import the library inside `run`, so `bonsai-git --help` loads none of it.
"""
