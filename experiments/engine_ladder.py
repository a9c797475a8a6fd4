"""A strength ladder against an external engine: `python experiments/engine_ladder.py --engine
"gtp:mohex" --setup "param_mohex max_games {level}" --levels 100 1000 -- --model hex11`. The
same command as `hexjax-engine-ladder`; see hexjax/commands/engine_ladder.py and
docs/engines.md.
"""

import sys

from hexjax.commands.engine_ladder import main

if __name__ == "__main__":
    sys.exit(main())
