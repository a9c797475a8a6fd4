"""Strength against simulations: the evaluate command at each count, one table
(`hexjax-search-scaling`, `experiments/search_scaling.py`).

    python experiments/search_scaling.py --counts 64 256 1024 -- --model hex7 --opponent mcts:5000

Everything after `--` goes to experiments/evaluate.py as it is; each count writes
its JSON to <out>/simulations-N.json (default out: search-scaling/).
"""

import argparse
import json
import pathlib
import sys

from hexjax.commands import evaluate, split_at_dashes


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ours, theirs = split_at_dashes(list(argv))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", type=int, nargs="+", default=[64, 256, 1024])
    parser.add_argument("--out", default="search-scaling", help="folder of the JSON records")
    args = parser.parse_args(ours)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for count in args.counts:
        path = out / f"simulations-{count}.json"
        status = evaluate.main([*theirs, "--simulations", str(count), "--out", str(path)])
        if status:
            return status
        record = json.loads(path.read_text())
        for spec, summary in record["results"].items():
            rows.append((count, spec, summary))
    print(f"\n{'simulations':>11}  {'opponent':<14} {'score':>7}  95% interval    Black   White")
    for count, spec, s in rows:
        print(
            f"{count:>11}  {spec:<14} {100 * s['score']:6.1f}%  "
            f"[{100 * s['low']:.1f}, {100 * s['high']:.1f}]  "
            f"{100 * s['as_black']:6.1f}% {100 * s['as_white']:6.1f}%"
        )
    return 0
