"""One module per ``dama`` subcommand.

A command module is named after the command (``-`` written as ``_``) and provides:

- a docstring whose first line is the one-line help shown by ``dama --help``;
- ``add_arguments(parser: argparse.ArgumentParser) -> None``;
- ``run(args: argparse.Namespace) -> int``, the exit status.

Only the module of the command being run is imported, so ``dama perft`` never pays for OpenCV and a
command under construction cannot break the others.
"""
