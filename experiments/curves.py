"""Several runs' score curves on one plot:
`python experiments/curves.py --run scratch=runs/g15 --run warm=runs/g15w --out curves.png`
(hexjax/commands/curves.py)."""

import sys

from hexjax.commands.curves import main

if __name__ == "__main__":
    sys.exit(main())
