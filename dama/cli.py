"""Entry point of the ``dama`` console script.

Subcommands are discovered from the modules of :mod:`dama.commands` without importing them; only the
chosen one is imported (see that package's docstring for the contract).
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from types import ModuleType

import dama.commands


def command_names() -> list[str]:
    """All subcommand names, from the module files, without importing them."""
    return sorted(
        m.name.replace("_", "-")
        for m in pkgutil.iter_modules(dama.commands.__path__)
        if not m.name.startswith("_")
    )


def load_command(name: str) -> ModuleType:
    return importlib.import_module(f"dama.commands.{name.replace('-', '_')}")


def _summary(module: ModuleType) -> str:
    doc = (module.__doc__ or "").strip()
    return doc.splitlines()[0] if doc else ""


def _usage() -> str:
    lines = ["usage: dama COMMAND [options]   (dama COMMAND --help for a command's options)", "", "commands:"]
    for name in command_names():
        try:
            summary = _summary(load_command(name))
        except Exception as exc:  # a broken command must not hide the others
            summary = f"(unavailable: {exc})"
        lines.append(f"  {name:<12} {summary}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0
    if argv[0] == "--version":
        print(dama.__version__)
        return 0
    name = argv[0]
    if name not in command_names():
        print(f"dama: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    module = load_command(name)
    parser = argparse.ArgumentParser(prog=f"dama {name}", description=(module.__doc__ or "").strip())
    module.add_arguments(parser)
    args = parser.parse_args(argv[1:])
    try:
        return int(module.run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. `dama referee | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
