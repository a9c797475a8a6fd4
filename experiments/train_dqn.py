"""Train a DQN / Double DQN baseline by self-play: `python experiments/train_dqn.py --board 7`.

Same conventions as experiments/train.py (--game, --board, --rule, --swap, --preset, --minutes,
--iterations, --workdir default runs/<game><board>-dqn, --resume, cadence flags). Config fields
as flags, e.g. `--double_dqn false`, `--n_step 3`, `--opponent pool`, `--shaping 0.01`,
`--epsilon_iterations 500` (see --help). Evaluate with
`python experiments/evaluate.py --checkpoint runs/hex7-dqn` (it plays its best legal Q-value).

The same command as `hexjax-train-dqn` (hexjax/commands/train.py).
"""

import sys

from hexjax.commands.train import main_dqn

if __name__ == "__main__":
    sys.exit(main_dqn())
