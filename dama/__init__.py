"""The wiring of the companion: the ``dama`` command line and the watch loop.

Each subcommand is a module in :mod:`dama.commands`; see :mod:`dama.cli`.
"""

__version__ = "0.1.0"
