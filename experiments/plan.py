"""Size a training run before paying for it: `python experiments/plan.py --preset accelerator
--game hex --board 11 --devices 8`. The same command as `hexjax-plan`; see
hexjax/commands/plan.py and docs/benchmarks.md.
"""

import sys

from hexjax.commands.plan import main

if __name__ == "__main__":
    sys.exit(main())
