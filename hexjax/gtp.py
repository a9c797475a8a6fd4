"""`python -m hexjax.gtp`: the Hex GTP engine (hexjax/play/gtp.py)."""

from hexjax.play.gtp import main

if __name__ == "__main__":
    raise SystemExit(main())
