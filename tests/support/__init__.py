"""Test support, not tests: plain-Python oracles written from the rules (hex_oracle,
gomoku_oracle, renju_oracle, puzzle_checker), golden positions (renju_golden), random
playouts, the OpenSpiel differential, tiny models and engine subprocesses (play_models), and
the multi-device check run in a subprocess (multidevice_check)."""
