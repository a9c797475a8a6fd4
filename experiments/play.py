"""Play against an agent: `python experiments/play.py --game hex --board 7` in the terminal,
`python experiments/play.py --web` in the browser. The same command as `hexjax-play`; see
hexjax/commands/play.py and docs/play.md.
"""

import sys

from hexjax.commands.play import main

if __name__ == "__main__":
    sys.exit(main())
