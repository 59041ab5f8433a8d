"""The names of a step's phases, and the groups the model and the trace analysis use, in one place.

>>> STEP
('load', 'forward', 'backward', 'wait', 'allreduce', 'optimizer')
>>> MEASURED[-2:], RECORDED == (*HOST[:3], ALLREDUCE, OTHER_COMM, OPTIMIZER)
(('allreduce', 'other_comm'), True)
>>> LOGGED, CAUSES[-3:] == LOGGED
(('forward_backward', 'gc', 'checkpoint'), True)
"""

from __future__ import annotations

__all__ = [
    "ALLREDUCE",
    "BACKWARD",
    "BETWEEN_STEPS",
    "CAUSES",
    "COMPUTE",
    "CHECKPOINT",
    "COPIES",
    "FORWARD",
    "FORWARD_BACKWARD",
    "GC",
    "GPU_COMM",
    "GPU_COMPUTE",
    "HOST",
    "HOST_LAUNCH",
    "IDLE",
    "LOAD",
    "LOGGED",
    "MEASURED",
    "MIXED",
    "OPTIMIZER",
    "OTHER_COMM",
    "OVERLAP_STEP",
    "RECORDED",
    "RESIDENT",
    "STEP",
    "SUMMED",
    "TRACE_LEGEND",
]

LOAD, FORWARD, BACKWARD, WAIT, ALLREDUCE, OPTIMIZER = "load", "forward", "backward", "wait", "allreduce", "optimizer"
OTHER_COMM, IDLE = "other_comm", "idle"
GPU_COMPUTE, GPU_COMM = "gpu_compute", "gpu_comm"
BETWEEN_STEPS, HOST_LAUNCH, COPIES = "between_steps", "host_launch", "copies"
MIXED = "mixed"
FORWARD_BACKWARD, GC, CHECKPOINT = "forward_backward", "gc", "checkpoint"

STEP = (LOAD, FORWARD, BACKWARD, WAIT, ALLREDUCE, OPTIMIZER)
"""The model's step, in order: every GPU goes through these, one after another (sequential mode)."""
COMPUTE = (FORWARD, BACKWARD)
"""What a straggler does slowly."""
RESIDENT = (FORWARD, BACKWARD, WAIT, ALLREDUCE, OPTIMIZER)
"""When a kernel is resident on the GPU: what nvidia-smi counts as busy (the wait included: NCCL spins)."""
OVERLAP_STEP = (LOAD, FORWARD, BACKWARD, WAIT, OPTIMIZER)
"""DDP overlap mode's compute lane; the AllReduce runs in buckets on a communication row of its own."""

LOGGED = (FORWARD_BACKWARD, GC, CHECKPOINT)
"""Host phases a trainer's own logs name and ddpcore's recordings do not (torchtitan's spans, `traces.titan`): the
forward and backward as one span where nothing splits them, garbage collection, a checkpoint's save."""
HOST = (LOAD, FORWARD, BACKWARD, OPTIMIZER, *LOGGED)
"""Phases a trace names with host events (DataLoader, forward, autograd, optimizer; a trainer's logged spans)."""
RECORDED = (LOAD, FORWARD, BACKWARD, ALLREDUCE, OTHER_COMM, OPTIMIZER)
"""What ddpcore's JSONL and its Recorder hold: the host phases and the collectives (allreduce: the gradient one)."""
MEASURED = (FORWARD, BACKWARD, OPTIMIZER, LOAD, *LOGGED, ALLREDUCE, OTHER_COMM)
"""Measured phases overlap (threads, async collectives); each instant goes to the first of these running then, so
communication shows only where no compute ran: exposed communication and the barrier wait."""
SUMMED = (*MEASURED, IDLE)
"""Where each instant of a measured step goes: one of the partitioned phases, or idle (what a summary keeps)."""
CAUSES = (LOAD, FORWARD, BACKWARD, OPTIMIZER, BETWEEN_STEPS, GPU_COMPUTE, HOST_LAUNCH, COPIES, *LOGGED)
"""Where a rank's time goes between the previous release and its readiness at the gradient barrier: the host phases,
host time outside any phase (`between_steps`), and on a GPU trace kernels that ran longer (`gpu_compute`), the GPU
idle while the host launched work (`host_launch`) and copies (`copies`); from a trainer's logs, its spans (LOGGED). A
straggler's cause is one of these, or `mixed` (MIXED)."""
HOST_CAUSES = CAUSES[:5]
"""The parts a host-only trace (or ddpcore's JSONL) can tell."""
TRACE_LEGEND = (LOAD, FORWARD, BACKWARD, ALLREDUCE, OTHER_COMM, OPTIMIZER, WAIT)
"""What a measured timeline draws (and GPU_COMPUTE, GPU_COMM when the traces hold kernels)."""
