"""The engines' search pinned to one core: JAX's threads inherit the pin made before they start."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from hexjax.play import cores

TWO_CORES = pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores")

# Pins (or not) before or after JAX starts, runs a program, and tells each thread's cores.
_SCRIPT = """
import json, os, sys
from hexjax.play import cores
choice, when = sys.argv[1], sys.argv[2]
import jax, jax.numpy as jnp
if when == "after":
    jax.numpy.zeros(1).block_until_ready()
used = cores.pin_search(choice)
jax.jit(lambda x: x @ x)(jnp.ones((64, 64))).block_until_ready()
threads = {}
for tid in os.listdir("/proc/self/task"):
    name = open(f"/proc/self/task/{tid}/comm").read().strip()
    threads[tid] = [name, sorted(os.sched_getaffinity(int(tid)))]
print(json.dumps({"used": sorted(used), "main": str(os.getpid()), "threads": threads}))
"""


def _run(choice: str, when: str = "before") -> dict:
    out = subprocess.run([sys.executable, "-c", _SCRIPT, choice, when], check=True,
                         capture_output=True, text=True).stdout  # fmt: skip
    return json.loads(out.splitlines()[-1])


@TWO_CORES
def test_one_pins_the_main_thread_and_every_thread_xla_starts():
    allowed = sorted(os.sched_getaffinity(0))
    run = _run("one")
    [core] = run["used"]
    assert core in allowed
    threads = run["threads"]
    assert threads[run["main"]][1] == [core]
    xla = [cpus for name, cpus in threads.values() if name.startswith("tf_")]
    assert xla and all(cpus == [core] for cpus in xla)


@TWO_CORES
def test_all_and_a_late_pin_change_nothing():
    allowed = sorted(os.sched_getaffinity(0))
    for run in (_run("all"), _run("one", when="after")):
        assert run["used"] == allowed
        assert run["threads"][run["main"]][1] == allowed


def test_an_unknown_choice_is_refused():
    with pytest.raises(ValueError, match="search cores must be one of one, all, got 'two'"):
        cores.pin_search("two")
