"""The command-line programs, each a `main(argv) -> exit status` behind a console script and a
thin script in experiments/: `hexjax-train` (train.py; also `hexjax-train-dqn`,
`hexjax-train-ppo`), `hexjax-evaluate` (evaluate.py), `hexjax-compare` (compare.py),
`hexjax-play` (play.py), `hexjax-export-model` (export_model.py), `hexjax-plan` (plan.py).
The engines are `hexjax-gtp` and `hexjax-gomocup` (hexjax.play.gtp, hexjax.play.gomocup).
"""
