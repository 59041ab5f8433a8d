"""Record the sixth held-out set of real DDP runs (tests/fixtures/heldout6; gloo on CPU, one process and one torch
thread per rank), chosen by a helper that never read the verdict's code: stragglers that move among 3, 4 and 6 ranks
(forward and backward, quiet and on a busy machine), random ones striking a rank-step in three, a slow rank, and
clean runs of 3, 4 and 6 ranks. Recorded by tests/make_heldout5.py's machinery (its `SET`): delays are time.sleep
only, each run waits for an idle machine first and records the CPU other processes used meanwhile. Regenerate (not
part of the tests; needs torch):

    PYTHONPATH=. /tmp/torchvenv/bin/python -m tests.make_heldout6 [names...]

Per run folder <name>: rank{r}.jsonl.gz (ddpcore Recorder, all steps), rank{r}.pt.trace.json.gz (torch.profiler
window), truth.json (every rank's wall time of each iteration, loop top to loop top, and which rank-steps slept)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.make_heldout5 import SET, Run, main

OUT = Path(os.environ.get("HELDOUT6_OUT", "tests/fixtures/heldout6"))

RUNS = {
    "mv_s12": Run(4, "moving", "forward", 12.0, active=8, first=24),
    "mv_s25_b": Run(4, "moving", "backward", 25.0, busy=True, active=10, first=30),
    "mv3_s15": Run(3, "moving", "forward", 15.0, active=8, first=28),
    "mv6_s15": Run(6, "moving", "forward", 15.0, active=8, first=34),
    "rnd_p3": Run(4, "random", "forward", 20.0, prob=0.3, seed=7, active=8, first=26),
    "rnd_p3_b": Run(4, "random", "forward", 20.0, prob=0.3, seed=8, busy=True, active=8, first=38),
    "clean_a": Run(4, active=8, first=24),
    "clean_b": Run(4, busy=True, active=8, first=30),
    "clean6": Run(6, active=8, first=34),
    "fix_s20": Run(4, "fixed", "forward", 20.0, ranks=(2,), active=8, first=26),
    # extra reference (not in the brief's list): a 3-rank quiet clean run, the cost reference of mv3_s15
    "clean3": Run(3, active=8, first=28),
}


if __name__ == "__main__":
    os.environ[SET] = "tests.make_heldout6"
    main(sys.argv[1:])
