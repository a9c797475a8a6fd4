"""AlphaZero against the DQN and PPO baselines, trained and evaluated alike: `python
experiments/compare.py`. The same command as `hexjax-compare`; see hexjax/commands/compare.py.
"""

import sys

from hexjax.commands.compare import main

if __name__ == "__main__":
    sys.exit(main())
