"""`python -m hexjax.gomocup`: the Gomocup brain (hexjax/play/gomocup.py)."""

from hexjax.play.gomocup import main

if __name__ == "__main__":
    raise SystemExit(main())
