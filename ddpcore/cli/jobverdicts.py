"""What `analyze` reports of a 3D-parallel job: the what-if's JSON payload (docs/contracts.md) and the same as text,
read from its payload. Apart from the per-rank verdict's reports (`verdicts`), so that analysing a job never loads
the per-rank traces path.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..analysis.jobwhatif import job_verdict
from ..base.words import Message

if TYPE_CHECKING:
    from ..analysis import JobWhatIf

__all__ = ["DIAGNOSIS_KINDS", "job_payload", "job_text"]


DIAGNOSIS_KINDS = {
    "job.worker": "one_worker",
    "job.last_stage": "stage_imbalance",
    "job.heavy_stage": "stage_imbalance",
    "job.spread_stages": "spread",
    "job.data_parallel": "uneven_work",
    "job.spread": "spread",
    "job.everywhere": "everywhere",
    "job.none": "none",
}
"""Each sentence of a job's verdict and the `diagnosis.kind` it gives in the JSON."""


def job_payload(
    w: JobWhatIf, notes: Sequence[Message] = (), left_out: Sequence[Message] = (), lang: str = "en"
) -> dict[str, Any]:
    """A 3D-parallel job's what-if as the JSON of `analyze` (docs/contracts.md): `parallel`, `slowdown`,
    `slowdown_by`, `m_w`, `m_s` and `diagnosis` (the first sentence's kind and values, the others' kinds in
    `also`), with step times in seconds and each split per step.

    >>> from ddpcore.analysis import job_whatif; from ddpcore.analysis.jobwhatif import job_times, simulated_job
    >>> p = job_payload(job_whatif(job_times(*simulated_job(dp=2, pp=2, steps=3, slow=(1, 0)))))
    >>> round(p["slowdown"], 2), p["slowdown_by"]["worker"]["1,0"] > 1.2, p["diagnosis"]["kind"]
    (1.31, True, 'one_worker')
    """

    def keyed(d: Mapping[Any, float]) -> dict[str, float]:
        return {str(k): v for k, v in d.items()}

    def finite(x: float) -> float | None:
        return x if math.isfinite(x) else None

    g = w.groups
    said = job_verdict(w)
    first = said[0]
    return {
        "job": g.name,
        "parallel": {"dp": g.dp, "pp": g.pp, "tp": g.tp, "cp": g.cp, "vpp": g.vpp},
        "world": g.world,
        "steps": list(w.steps),
        "step_s": list(w.step_s),
        "ideal_step_s": list(w.ideal_s),
        "slowdown": w.slowdown,
        "launch_slowdown": w.launch_slowdown,
        "step_slowdown": keyed(w.step_slowdown),
        "slowdown_by": {
            "dp_rank": keyed(w.by_dp),
            "stage": keyed(w.by_stage),
            "op_type": keyed(w.by_optype),
            "worker": {f"{d},{s}": v for (d, s), v in w.by_worker.items()},
        },
        "slowdown_by_step": {
            "dp_rank": {str(s): keyed(v) for s, v in w.by_dp_step.items()},
            "stage": {str(s): keyed(v) for s, v in w.by_stage_step.items()},
            "op_type": {str(s): keyed(v) for s, v in w.by_optype_step.items()},
        },
        "worst_workers": [{"dp_rank": d, "stage": s} for d, s in w.worst_workers],
        "m_w": finite(w.m_w),
        "m_s": finite(w.m_s),
        "without_worst_workers_s": finite(w.without_worst_s),
        "without_last_stage_s": finite(w.without_last_s),
        "stage_load": keyed(w.stage_load),
        "without_heavy_stage_s": finite(w.without_heavy_s),
        "diagnosis": {
            "kind": DIAGNOSIS_KINDS[first.code],
            **{
                k: list(v) if isinstance(v, tuple) else float(v) if isinstance(v, float) else v for k, v in first.values
            },
            "text": first.text(lang),
            "also": [{"kind": DIAGNOSIS_KINDS[m.code], "text": m.text(lang)} for m in said[1:]],
        },
        "verdict": [{"code": m.code, "en": m.text("en"), "fr": m.text("fr")} for m in said],
        "skipped": [m.text(lang) for m in w.skipped],
        "notes": [m.text(lang) for m in notes],
        "errors": [m.text(lang) for m in left_out],
    }


def job_text(p: Mapping[str, Any]) -> str:
    """A job's what-if as text, read from its payload.

    >>> from ddpcore.analysis import job_whatif; from ddpcore.analysis.jobwhatif import job_times, simulated_job
    >>> text = job_text(job_payload(job_whatif(job_times(*simulated_job(dp=2, pp=2, steps=3, slow=(1, 0))))))
    >>> print(text.splitlines()[0])
    3D-parallel job simulated: DP 2 × PP 2 × TP 1 × CP 1 (4 ranks), 3 steps
    """
    par = p["parallel"]
    lines = [
        f"3D-parallel job {p['job']}: DP {par['dp']} × PP {par['pp']} × TP {par['tp']} × CP {par['cp']} "
        f"({p['world']} ranks)"
        + (f", {par['vpp']} model chunks a stage (interleaved)" if par["vpp"] > 1 else "")
        + f", {len(p['steps'])} steps"
    ]
    ideal = math.fsum(p["ideal_step_s"]) / len(p["ideal_step_s"])
    mean = math.fsum(p["step_s"]) / len(p["step_s"])
    lines.append(f"slowdown S = {p['slowdown']:.3f}: steps of {mean:.3f} s as recorded, {ideal:.3f} s ideal")
    for key, name in (("dp_rank", "DP rank"), ("stage", "stage"), ("op_type", "operation type")):
        by = list(p["slowdown_by"][key].items())
        if by:
            more = ", …" if len(by) > 4 else ""
            lines.append(f"  S by {name}: " + ", ".join(f"{k} {v:.3f}" for k, v in by[:4]) + more)
    if p["m_w"] is not None:
        lines.append(f"  M_W {p['m_w']:.3f} (the worst workers' share), M_S {p['m_s']:.3f} (the last stage's)")
    lines += [v["en"] for v in p["verdict"]]
    return "\n".join(lines)
