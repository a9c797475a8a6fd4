"""Typed config <-> command-line flags and JSON.

Every leaf field of a frozen dataclass tree becomes a flag: top-level fields as `--name`, nested
ones as `--section.name` (`--search.num_simulations 32`, `--optimizer.learning_rate 3e-4`).
Booleans take `true/false`. Values are checked by the dataclasses themselves, so a bad value
fails with the dataclass's message, before anything runs.
"""

from __future__ import annotations

import argparse
import dataclasses
import types
import typing


def _leaves(config_type, prefix=""):
    hints = typing.get_type_hints(config_type)
    for field in dataclasses.fields(config_type):
        kind = hints[field.name]
        if dataclasses.is_dataclass(kind):
            yield from _leaves(kind, f"{prefix}{field.name}.")
        else:
            yield f"{prefix}{field.name}", kind


def _parse_bool(text: str) -> bool:
    lowered = text.lower()
    if lowered in ("true", "1", "yes", "on"):
        return True
    if lowered in ("false", "0", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def _scalar_type(kind):
    optional = [arg for arg in typing.get_args(kind) if arg is not type(None)]
    if typing.get_origin(kind) in (typing.Union, types.UnionType) and len(optional) == 1:
        kind = optional[0]  # `int | None`: the flag gives an int
    if kind is bool:
        return _parse_bool
    if typing.get_origin(kind) is typing.Literal:
        return str
    if kind in (int, float, str):
        return kind
    raise TypeError(f"unsupported config field type {kind!r}")


def add_flags(parser: argparse.ArgumentParser, config_type, shown=None, where: str = "") -> None:
    """Add one flag per leaf field; defaults are None so that only given flags override. With
    `shown` (a config of `config_type`, e.g. the default preset, named by `where`), each flag's
    help names its value there. A field the command already has a flag for (the flag's dest is
    the field's name, e.g. train's `--init-from`) keeps that flag alone."""
    group = parser.add_argument_group("config fields")
    taken = {action.dest for action in parser._actions}  # argparse lists them nowhere public
    for name, kind in _leaves(config_type):
        if name in taken:
            continue
        choices = typing.get_args(kind) if typing.get_origin(kind) is typing.Literal else None
        help_text = None if shown is None else f"{value(shown, name)!r} {where}".strip()
        group.add_argument(
            f"--{name}",
            type=_scalar_type(kind),
            default=None,
            choices=choices,
            metavar="V",
            help=help_text,
        )


def value(config, dotted: str):
    """The field `dotted` ("search.num_simulations") of a config tree."""
    for part in dotted.split("."):
        config = getattr(config, part)
    return config


def overrides_from_args(args: argparse.Namespace, config_type) -> dict:
    """{'search.num_simulations': 32, ...} for the flags that were given."""
    values = vars(args)
    return {name: values[name] for name, _ in _leaves(config_type) if values.get(name) is not None}


def replace(config, overrides: dict):
    """A copy of `config` with dotted-name overrides applied (and validated)."""
    nested: dict = {}
    for name, value in overrides.items():
        head, _, rest = name.partition(".")
        if rest:
            nested.setdefault(head, {})[rest] = value
        else:
            nested[head] = value
    changes = {}
    for head, value in nested.items():
        if not any(f.name == head for f in dataclasses.fields(config)):
            raise ValueError(f"unknown config field {head!r}")
        current = getattr(config, head)
        changes[head] = replace(current, value) if isinstance(value, dict) else value
    return dataclasses.replace(config, **changes)


def to_dict(config) -> dict:
    return dataclasses.asdict(config)


def from_dict(config_type, data: dict):
    """Rebuild a config tree from `to_dict` output (unknown keys are an error). A field missing
    from `data` takes the value the config type names in `STORED_BEFORE` (what a config written
    before the field existed ran with), else its default; a type's `from_stored(data)`, if it
    has one, first renames what older versions wrote."""
    data = getattr(config_type, "from_stored", lambda stored: stored)(data)
    hints = typing.get_type_hints(config_type)
    known = {f.name for f in dataclasses.fields(config_type)}
    unknown = set(data) - known
    if unknown:
        raise ValueError(f"unknown config fields {sorted(unknown)} for {config_type.__name__}")
    before = getattr(config_type, "STORED_BEFORE", {})
    values = {name: value for name, value in before.items() if name not in data}
    for name, value in data.items():
        kind = hints[name]
        values[name] = from_dict(kind, value) if dataclasses.is_dataclass(kind) else value
    return config_type(**values)
