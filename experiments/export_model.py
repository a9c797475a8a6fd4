"""Store a training run's network as a shipped model: `python experiments/export_model.py
--checkpoint runs/hex7 --name hex7`. The same command as `hexjax-export-model`; see
hexjax/commands/export_model.py.
"""

import sys

from hexjax.commands.export_model import main

if __name__ == "__main__":
    sys.exit(main())
