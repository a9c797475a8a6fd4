"""A Ctrl-C swallowed by a garbage collector callback (JAX registers one) is sent again."""

import subprocess
import sys
import textwrap

# A collector callback that receives the Ctrl-C, as JAX's does when the signal lands during a
# collection; then two seconds in which a delivered Ctrl-C ends the program with 130.
PROGRAM = textwrap.dedent("""
    import gc, signal, sys, time
    from hexjax.play import interrupts
    if sys.argv[1] == "install":
        interrupts.install()
    def once(phase, info):
        gc.callbacks.remove(once)
        signal.raise_signal(signal.SIGINT)
    gc.callbacks.append(once)
    try:
        gc.collect()
        time.sleep(2)
    except KeyboardInterrupt:
        sys.exit(130)
""")


def run(mode: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", PROGRAM, mode]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def test_a_ctrl_c_lost_in_the_collector_is_delivered_again():
    installed = run("install")
    assert installed.returncode == 130, installed.stderr
    assert "Traceback" not in installed.stderr and "ignored" not in installed.stderr


def test_without_it_python_loses_that_ctrl_c():
    # The failure install() exists for: the program sleeps on and exits normally.
    plain = run("plain")
    assert plain.returncode == 0 and "KeyboardInterrupt" in plain.stderr
