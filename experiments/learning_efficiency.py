"""Strength against CPU-minutes for training recipes, each from several seeds:
`python experiments/learning_efficiency.py --iterations 1158 --recipe default= --recipe
pooling="--network.global_pooling true" --opponent greedy --out runs/efficiency-g9 -- --game
gomoku --board 9`. The same command as `hexjax-learning-efficiency`; see
hexjax/commands/learning_efficiency.py and docs/learning-methods.md.
"""

import sys

from hexjax.commands.learning_efficiency import main

if __name__ == "__main__":
    sys.exit(main())
