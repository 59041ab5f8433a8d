"""Record the seventh held-out set of real DDP runs (tests/fixtures/heldout7; gloo on CPU, one process and one torch
thread per rank), chosen by a helper that never read the verdict's code: clean runs of 3, 4 and 6 ranks (idle, busy,
and beside a CI run), random stragglers (a rank-step in twenty sleeping 30 ms in its backward; in seven, 12 ms in
its forward), a moving one among 3 ranks (22 ms, backward), one slow rank of 3 and of 4 (the latter in a 3-step
window) and two slow ranks of 6. Recorded by tests/make_heldout5.py's machinery (its `SET`), the quiet wait at 90 s
(`HELDOUT5_QUIET_S=90`): the runs it could not wait for record how much CPU the others took meanwhile
(`others_cpu_share_during`). Regenerate (not part of the tests; needs torch):

    PYTHONPATH=. HELDOUT5_QUIET_S=90 /tmp/torchvenv/bin/python -m tests.make_heldout7 [names...]

Per run folder <name>: rank{r}.jsonl.gz (ddpcore Recorder, all steps), rank{r}.pt.trace.json.gz (torch.profiler
window), truth.json (every rank's wall time of each iteration, loop top to loop top, and which rank-steps slept)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.make_heldout5 import SET, Run, main

OUT = Path(os.environ.get("HELDOUT7_OUT", "tests/fixtures/heldout7"))

RUNS = {
    "c4_b": Run(4, busy=True, active=5, first=26),
    "c6_q": Run(6, active=4, first=30),
    "r4_p05_s30_rq": Run(4, "random", "backward", 30.0, prob=0.05, seed=101, active=10, first=24),
    "r3_p15_s12_rq": Run(3, "random", "forward", 12.0, prob=0.15, seed=202, active=7, first=30),
    "m3_s22_bw": Run(3, "moving", "backward", 22.0, active=6, first=36),
    "f3_s12": Run(3, "fixed", "forward", 12.0, ranks=(1,), active=9, first=24),
    "f4_s25_w3": Run(4, "fixed", "backward", 25.0, ranks=(3,), active=3, first=40),
    "two6_s16": Run(6, "fixed", "forward", 16.0, ranks=(0, 4), active=7, first=26),
    "c3_rq": Run(3, active=6, first=20),
    "c4_rq": Run(4, active=10, first=32),
    "c6_rq": Run(6, active=4, first=30),
}


if __name__ == "__main__":
    os.environ[SET] = "tests.make_heldout7"
    main(sys.argv[1:])
