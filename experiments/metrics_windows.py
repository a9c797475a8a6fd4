"""A run's periodic evaluations averaged over windows of training minutes:
`python experiments/metrics_windows.py --workdir runs/othello8 --minutes 6`
(hexjax/commands/metrics_windows.py)."""

import sys

from hexjax.commands.metrics_windows import main

if __name__ == "__main__":
    sys.exit(main())
