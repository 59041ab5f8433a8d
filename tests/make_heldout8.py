"""Record the eighth held-out set of real DDP runs (tests/fixtures/heldout8; gloo on CPU, one process and one torch
thread per rank), chosen by a helper that never read the verdict's code: clean runs of 2, 4 and 5 ranks (idle, and
4 busy in a 3-step window), one slow rank of 5 (10 ms forward), of 4 (a sleep about one rank's whole step, 25 ms
forward, a 4-step window; 15 ms backward on a busy machine, a 5-step window) and of 2 (20 ms forward), moving
stragglers among 5 ranks (18 ms forward, busy) and 2 ranks (20 ms backward), random ones (a rank-step in ten
sleeping 25 ms in its backward among 5; in thirty-three, 40 ms in its forward among 4, busy) and two slow ranks of 4
(12 ms forward, a 4-step window). Recorded by tests/make_heldout5.py's machinery (its `SET`), the quiet wait at
90 s (`HELDOUT5_QUIET_S=90`): the runs it could not wait for record how much CPU the others took meanwhile
(`others_cpu_share_during`). Regenerate (not part of the tests; needs torch):

    PYTHONPATH=. HELDOUT5_QUIET_S=90 /tmp/torchvenv/bin/python -m tests.make_heldout8 [names...]

Per run folder <name>: rank{r}.jsonl.gz (ddpcore Recorder, all steps), rank{r}.pt.trace.json.gz (torch.profiler
window), truth.json (every rank's wall time of each iteration, loop top to loop top, and which rank-steps slept)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.make_heldout5 import SET, Run, main

OUT = Path(os.environ.get("HELDOUT8_OUT", "tests/fixtures/heldout8"))

RUNS = {
    "k5_q": Run(5, active=6, first=28),
    "k4_q": Run(4, active=8, first=22),
    "k4_b_w3": Run(4, busy=True, active=3, first=37),
    "k2_q": Run(2, active=5, first=31),
    "f5_s10": Run(5, "fixed", "forward", 10.0, ranks=(4,), active=8, first=25),
    "f4_big_w4": Run(4, "fixed", "forward", 25.0, ranks=(1,), active=4, first=34),
    "f4_s15_b_w5": Run(4, "fixed", "backward", 15.0, ranks=(0,), busy=True, active=5, first=21),
    "f2_s20": Run(2, "fixed", "forward", 20.0, ranks=(1,), active=6, first=39),
    "m5_s18_b": Run(5, "moving", "forward", 18.0, busy=True, active=10, first=27),
    "m2_s20": Run(2, "moving", "backward", 20.0, active=8, first=33),
    "r5_p10_s25": Run(5, "random", "backward", 25.0, prob=0.1, seed=808, active=10, first=23),
    "r4_p03_s40_b": Run(4, "random", "forward", 40.0, prob=0.03, seed=809, busy=True, active=8, first=30),
    "two4_s12_w4": Run(4, "fixed", "forward", 12.0, ranks=(0, 2), active=4, first=36),
}


if __name__ == "__main__":
    os.environ[SET] = "tests.make_heldout8"
    main(sys.argv[1:])
