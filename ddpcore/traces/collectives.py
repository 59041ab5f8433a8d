"""Collectives by kind, from the names profilers give them, and which of them synchronise gradients.

Host side, a collective shows as a c10d op (`c10d::allreduce_`, `c10d::_reduce_scatter_base_`), a backend
annotation (`nccl:all_reduce`, `gloo:all_reduce`) or `record_param_comms` (whose `Collective name` argument, when
present, names it). Device side, NCCL kernels carry the kind in their name (`ncclDevKernel_AllReduce_Sum_f32_RING_LL`,
`ncclKernel_AllGather_RING_LL_Sum_int8_t`).

>>> collective_kind("c10d::_reduce_scatter_base_")
'reduce_scatter'
>>> collective_kind("nccl:all_to_all"), collective_kind("gloo:all_reduce"), collective_kind("aten::add")
('all_to_all', 'allreduce', None)
>>> kernel_kind("ncclDevKernel_AllReduce_Sum_f32_RING_LL"), kernel_kind("ncclKernel_SendRecv_RING_SIMPLE")
('allreduce', 'send_recv')
"""

from __future__ import annotations

__all__ = [
    "GRADIENT_KINDS",
    "KINDS",
    "RECORD_PARAM_COMMS",
    "UNKNOWN_KIND",
    "WORKER_PREFIXES",
    "collective_kind",
    "kernel_kind",
    "kind_of_op",
]

KINDS = (
    "allreduce",
    "reduce_scatter",
    "all_gather",
    "broadcast",
    "all_to_all",
    "barrier",
    "send_recv",
    "reduce",
    "gather",
    "scatter",
)
GRADIENT_KINDS = frozenset({"allreduce", "reduce_scatter"})
"""What a data-parallel backward launches to average gradients: DDP's bucket AllReduce, FSDP's reduce-scatter.
Everything else (the buffer broadcast at forward start, TorchRec's all_to_all, FSDP's all_gather) is other_comm."""

UNKNOWN_KIND = "collective"
HOST_PREFIXES = ("c10d::", "nccl:", "gloo:", "mpi:", "ucc:", "xccl:")
WORKER_PREFIXES = ("gloo:",)
"""Backends whose annotation spans the collective's run on a worker thread, not its launch: it ends when the
collective does (the release), and starts when the worker gets to it, which is no launch."""
KERNEL_PREFIXES = ("ncclDevKernel_", "ncclKernel_")
RECORD_PARAM_COMMS = "record_param_comms"

_SPELLINGS = (
    ("allreduce", "allreduce"),
    ("reducescatter", "reduce_scatter"),
    ("allgather", "all_gather"),
    ("alltoall", "all_to_all"),
    ("broadcast", "broadcast"),
    ("barrier", "barrier"),
    ("sendrecv", "send_recv"),
    ("send", "send_recv"),
    ("recv", "send_recv"),
    ("reduce", "reduce"),
    ("gather", "gather"),
    ("scatter", "scatter"),
)


def kind_of_op(op: str) -> str:
    """A collective's kind from its op name alone (`_allgather_base_`, `all_reduce`, `AllReduce_Sum_f32`).

    >>> kind_of_op("allreduce"), kind_of_op("_allgather_base"), kind_of_op("broadcast")
    ('allreduce', 'all_gather', 'broadcast')
    """
    squashed = op.lower().replace("_", "").replace(" ", "")
    return next((kind for spelling, kind in _SPELLINGS if squashed.startswith(spelling)), UNKNOWN_KIND)


def collective_kind(name: str) -> str | None:
    """The kind of a host event that launches a collective, or None when the event is not one."""
    for prefix in HOST_PREFIXES:
        if name.startswith(prefix):
            kind = kind_of_op(name[len(prefix) :])
            return kind if kind != UNKNOWN_KIND or prefix != "c10d::" else None
    return None


def kernel_kind(name: str) -> str | None:
    """The kind of a communication kernel (any kernel whose name says NCCL, or AMD's RCCL), or None otherwise."""
    for prefix in KERNEL_PREFIXES:
        if name.startswith(prefix):
            return kind_of_op(name[len(prefix) :])
    lowered = name.lower()
    return UNKNOWN_KIND if "nccl" in lowered or "rccl" in lowered else None
