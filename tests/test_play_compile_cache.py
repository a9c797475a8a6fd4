"""Exported programs: traced once, read back by a later start, exported again when damaged or
when what they depend on changes."""

import jax.numpy as jnp
import numpy as np

from hexjax.play import compile_cache


def test_programs_are_traced_once_read_back_and_replaced_when_damaged(tmp_path, monkeypatch):
    monkeypatch.setattr(compile_cache, "_folder", tmp_path)
    (tmp_path / "exported").mkdir()
    traced = []

    def step(tree, scale):
        traced.append(1)
        return {"sum": tree["a"] + tree["b"] * scale, "pair": (tree["a"], scale)}

    def arguments():  # new arrays each time: a donated argument is deleted
        return {"a": jnp.ones(3), "b": jnp.arange(3.0)}, jnp.float32(2)

    args = arguments()

    def check(run):
        out = run(*arguments())
        np.testing.assert_array_equal(out["sum"], [1.0, 3.0, 5.0])
        assert out["pair"][1] == 2.0 and out["pair"][0].shape == (3,)

    check(compile_cache.compiled("step", step, args))
    [path] = (tmp_path / "exported").iterdir()
    check(compile_cache.compiled("step", step, args, donate=(0,)))
    assert len(traced) == 1  # read back: not traced again
    check(compile_cache.compiled("step", step, args, key="another model"))
    assert len(traced) == 2 and len(list((tmp_path / "exported").iterdir())) == 2
    path.write_bytes(b"damaged")
    check(compile_cache.compiled("step", step, args))
    assert len(traced) == 3 and path.read_bytes() != b"damaged"
    # Not enabled: compiled as before, nothing written.
    monkeypatch.setattr(compile_cache, "_folder", None)
    check(compile_cache.compiled("step", step, args, key="off"))
    assert len(list((tmp_path / "exported").iterdir())) == 2
