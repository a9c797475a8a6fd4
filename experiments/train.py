"""Train an AlphaZero agent: `python experiments/train.py --board 7` (Hex 7x7, 5 minutes).

Shortcuts: --game, --board, --rule, --swap, --preset (tiny | cpu | accelerator), --simulations,
--minutes, --iterations, --workdir, --resume. Every config field is also a flag, e.g.
`--search.policy puct`, `--optimizer.learning_rate 3e-4`, `--selfplay_games 256`
(see --help). Output in --workdir: metrics.jsonl, tensorboard/, checkpoints/, plots/.
"""

from __future__ import annotations

import sys

from hexjax import train_cli, trainers
from hexjax.train_cli import CADENCE  # noqa: F401 (the defaults, for readers of this script)


def parse(argv=None):
    return train_cli.parse(argv, trainers.ALPHAZERO, __doc__.splitlines()[0])


def main(argv=None) -> int:
    return train_cli.main(argv, trainers.ALPHAZERO, __doc__.splitlines()[0])


if __name__ == "__main__":
    sys.exit(main())
