"""Compiled searches kept on disk for the play front ends: an engine started again reads its
searches back instead of tracing and compiling them (seconds on a CPU, inside START).

Two layers, in one folder: JAX's persistent compilation cache (the XLA executables), and
`exported` programs (jax.export: the traced program of a step, so that a later start does not
trace it either; renju's reading takes seconds to trace). Beside them, `measured` numbers
(`remember`, `recall`): what a start would otherwise measure again, such as a search's rate.
`enable` sends the games' host functions (start position, step, renju's reading:
`hexjax/games/host_compile.py`) here too. An exported program is named by a digest of hexjax's
source, the versions of JAX, mctx and Flax, the caller's key and the shapes of its arguments, so
a change to any of them makes a new one (a measured number, by the source and its key).

The front ends turn it on at their start, and an `Agent` (the Python API) when it first
searches. The folder is JAX's when set (JAX_COMPILATION_CACHE_DIR, or its config), else
$XDG_CACHE_HOME/hexjax/jax (~/.cache/hexjax/jax). HEXJAX_COMPILATION_CACHE=off leaves JAX's
setting alone and exports nothing. JAX does not cache a program with a host callback: the
play searches have none (`lasting.py` sees Ctrl-C and stops between its chunks).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import json
import math
import os
import pathlib
import pickle
import tempfile

import jax
from jax import export

from hexjax.games import host_compile

OFF_VARIABLE = "HEXJAX_COMPILATION_CACHE"
_PACKAGE = pathlib.Path(__file__).resolve().parents[1]
_folder: pathlib.Path | None = None  # set by `enable`


def default_folder() -> pathlib.Path:
    base = os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache"
    return pathlib.Path(base) / "hexjax" / "jax"


def enable() -> pathlib.Path | None:
    """Turn the cache on (every compile kept, however quick), once a process: the folder, or
    None where it is off or cannot be made (a read-only home: searches then compile as
    before). A folder already given to JAX (its variable or its config) is the one used."""
    global _folder
    if _folder is not None:
        return _folder
    if os.environ.get(OFF_VARIABLE, "").lower() == "off":
        return None
    given = os.environ.get("JAX_COMPILATION_CACHE_DIR") or jax.config.jax_compilation_cache_dir
    folder = pathlib.Path(given or default_folder())
    try:
        for part in ("exported", "measured"):
            (folder / part).mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    jax.config.update("jax_compilation_cache_dir", str(folder))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    _folder = folder
    host_compile.install(lambda name, fn, args, key: compiled(name, fn, args, key=key))
    return folder


@functools.cache
def _code_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*.py")):
        digest.update(str(path.relative_to(_PACKAGE)).encode() + b"\0" + path.read_bytes())
    for package in ("jax", "jaxlib", "mctx", "flax"):
        digest.update(f"{package} {importlib.metadata.version(package)}".encode())
    return digest.hexdigest()


def compiled(name: str, fn, args: tuple, donate: tuple[int, ...] = (), key: str = ""):
    """fn compiled ahead of time for arguments shaped like `args` (a tuple of pytrees; the
    `donate` ones given up to the output); a callable taking and returning the same pytrees.
    With the cache enabled, the traced program is read from (or written to) the folder."""
    if _folder is None:
        return jax.jit(fn, donate_argnums=donate).lower(*args).compile()
    leaves, in_def = jax.tree.flatten(args)
    shapes = [jax.ShapeDtypeStruct(jax.numpy.shape(x), jax.numpy.result_type(x)) for x in leaves]
    starts = [0]
    for arg in args:
        starts.append(starts[-1] + len(jax.tree.leaves(arg)))
    donated = tuple(i for a in donate for i in range(starts[a], starts[a + 1]))
    identity = f"{_code_digest()} {name} {key} {in_def} {shapes}"
    path = _folder / "exported" / f"{name}-{hashlib.sha256(identity.encode()).hexdigest()}"
    if not leaves:  # no arguments: the program is a constant, kept as its result
        return _constant(path.with_suffix(".result"), fn)
    program, out_def = _read(path)
    if program is None:
        program, out_def = _export(fn, in_def, shapes)
        _write(path, pickle.dumps((program.serialize(), out_def)))
    run = jax.jit(program.call, donate_argnums=donated).lower(*shapes).compile()
    return lambda *given: jax.tree.unflatten(out_def, run(*jax.tree.leaves(given)))


def remember(name: str, key: str, value: float) -> None:
    """Keep a number measured on this machine (e.g. a search's simulations a second) for a later
    start to `recall`; nothing where the cache is off."""
    if _folder is not None:
        _write(_measured_path(name, key), json.dumps(float(value)).encode())


def recall(name: str, key: str) -> float | None:
    """The number last remembered under `name` and `key` (and this source), or None."""
    if _folder is None:
        return None
    try:
        value = float(json.loads(_measured_path(name, key).read_bytes()))
    except (OSError, ValueError, TypeError):  # missing or damaged: measured again
        return None
    return value if math.isfinite(value) and value > 0 else None


def _measured_path(name: str, key: str) -> pathlib.Path:
    identity = f"{_code_digest()} {name} {key}"
    return _folder / "measured" / f"{name}-{hashlib.sha256(identity.encode()).hexdigest()}"


def _constant(path: pathlib.Path, fn):
    """A callable of no arguments returning what `fn()` returns, read from `path` (else
    computed once and written there): loading a start position's program takes longer than
    reading the position."""
    try:
        leaves, out_def = pickle.loads(path.read_bytes())
    except Exception:  # missing, truncated or from another version: computed again
        leaves, out_def = jax.tree.flatten(jax.device_get(jax.jit(fn)()))
        _write(path, pickle.dumps((leaves, out_def)))
    result = jax.tree.unflatten(out_def, jax.device_put(leaves))
    return lambda: result


def _export(fn, in_def, shapes):
    out_def = None

    def flat(*leaves):
        nonlocal out_def
        outputs, out_def = jax.tree.flatten(fn(*jax.tree.unflatten(in_def, leaves)))
        return outputs

    program = export.export(jax.jit(flat))(*shapes)
    return program, out_def


def _read(path: pathlib.Path):
    """(program, output structure) stored at `path`, or (None, None) if none can be read."""
    try:
        blob, out_def = pickle.loads(path.read_bytes())
        return export.deserialize(bytearray(blob)), out_def
    except Exception:  # missing, truncated or from another version: export it again
        return None, None


def _write(path: pathlib.Path, data: bytes) -> None:
    """Write whole or not at all (engines started together may write the same program)."""
    try:
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as handle:
            handle.write(data)
        os.replace(handle.name, path)
    except OSError:
        pass  # a full or read-only disk: the next start exports again
