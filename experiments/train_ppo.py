"""Train a PPO actor-critic baseline by self-play: `python experiments/train_ppo.py --board 7`.

Same conventions as experiments/train.py (--game, --board, --rule, --swap, --preset, --minutes,
--iterations, --workdir default runs/<game><board>-ppo, --resume, cadence flags). Config fields
as flags, e.g. `--epochs 4`, `--gae_lambda 0.95`, `--clip_ratio 0.2`, `--entropy_coef 0.01`,
`--optimizer.batch_size 512` (see --help). Evaluate with
`python experiments/evaluate.py --checkpoint runs/hex7-ppo` (it plays its likeliest legal move).

The same command as `hexjax-train-ppo` (hexjax/commands/train.py).
"""

import sys

from hexjax.commands.train import main_ppo

if __name__ == "__main__":
    sys.exit(main_ppo())
