"""Train an AlphaZero agent: `python experiments/train.py --board 7` (Hex 7x7, 5 minutes).

Shortcuts: --game, --board, --rule, --swap, --preset (tiny | cpu | accelerator), --simulations,
--minutes, --iterations, --workdir, --resume. Every config field is also a flag, e.g.
`--search.policy puct`, `--optimizer.learning_rate 3e-4`, `--selfplay_games 256`
(see --help). Output in --workdir: metrics.jsonl, tensorboard/, checkpoints/, plots/.

The same command as `hexjax-train` (hexjax/commands/train.py).
"""

import sys

from hexjax.commands.train import main

if __name__ == "__main__":
    sys.exit(main())
