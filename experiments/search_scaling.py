"""Strength against simulations: `python experiments/search_scaling.py --counts 64 256 1024 --
--model hex7 --opponent mcts:5000`. The same command as `hexjax-search-scaling`; see
hexjax/commands/search_scaling.py and docs/evaluation.md.
"""

import sys

from hexjax.commands.search_scaling import main

if __name__ == "__main__":
    sys.exit(main())
