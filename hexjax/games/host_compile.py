"""How the games' host conveniences compile: the start position, a step, renju's reading, called
one game at a time from the host (`Game.new_state`, `host_step`, `Gomoku.forbidden_points`).

By default `host_jit(fn, name, key)` is `jax.jit(fn)`. A front end that keeps compiled programs
on disk (`hexjax/play/compile_cache.py`, the engines) installs its compiler here, so that a
later start neither traces nor compiles them: renju's reading takes seconds to trace, and an
engine's START readies two rules. The games do not import the play layer; it reaches down.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

# compiler(name, fn, args, key) -> a callable for arguments shaped like `args`; `key` names
# what `fn` bakes in (the game), beside its name and the arguments' shapes.
Compiler = Callable[[str, Callable, tuple, str], Callable]
_compiler: Compiler | None = None


def install(compiler: Compiler | None) -> None:
    """Compile the games' host functions with `compiler` from now on (None: jax.jit again)."""
    global _compiler
    _compiler = compiler


class host_jit:  # noqa: N801 - used as jax.jit is
    """`fn` compiled by the installed compiler, once for each shape of its arguments."""

    def __init__(self, fn: Callable, name: str, key: str):
        self._fn, self._name, self._key = fn, name, key
        self._jit = jax.jit(fn)
        self._programs: dict = {}

    def __call__(self, *args):
        if _compiler is None:  # the usual case: nothing more on each host step
            return self._jit(*args)
        leaves, structure = jax.tree.flatten(args)
        # Called inside a traced function (renju's init reads its board): an ordinary jit.
        if any(isinstance(x, jax.core.Tracer) for x in leaves):
            return self._jit(*args)
        signature = (structure, *((jnp.shape(x), jnp.result_type(x)) for x in leaves))
        program = self._programs.get(signature)
        if program is None:  # two threads may both compile it: the same program either way
            program = self._programs[signature] = _compiler(self._name, self._fn, args, self._key)
        return program(*args)
