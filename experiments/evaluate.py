"""Evaluate a trained agent in the arena: `python experiments/evaluate.py --checkpoint runs/hex7
--opponent mcts:1000 --games 200`. The same command as `hexjax-evaluate`; see
hexjax/commands/evaluate.py and docs/evaluation.md.
"""

import sys

from hexjax.commands.evaluate import main

if __name__ == "__main__":
    sys.exit(main())
