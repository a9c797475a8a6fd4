"""The command-line programs, each a `main(argv) -> exit status` behind a console script and a
thin script in experiments/: `hexjax-train` (train.py; also `hexjax-train-dqn`,
`hexjax-train-ppo`), `hexjax-evaluate` (evaluate.py), `hexjax-compare` (compare.py),
`hexjax-play` (play.py), `hexjax-export-model` (export_model.py), `hexjax-plan` (plan.py),
and the commands over those: `hexjax-search-scaling`, `hexjax-engine-ladder`,
`hexjax-learning-efficiency`. The engines are `hexjax-gtp` and `hexjax-gomocup`
(hexjax.play.gtp, hexjax.play.gomocup).
"""


def split_at_dashes(argv: list[str]) -> tuple[list[str], list[str]]:
    """A command's own flags, and those after `--` that it passes on to the command it runs."""
    at = argv.index("--") if "--" in argv else len(argv)
    return argv[:at], argv[at + 1 :]
