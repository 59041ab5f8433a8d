"""ddpcore: one step of data-parallel GPU training, modelled in the standard library."""

from .config import Phases, StepConfig
from .metrics import StepMetrics, step_metrics
from .params import ConfigError
from .ring import ChunkState, Exchange, Transfer, allreduce, exchange, exchanges, ring_state, traffic_factor
from .schedule import PHASES, Schedule, build_schedule

__all__ = [
    "PHASES",
    "ChunkState",
    "ConfigError",
    "Exchange",
    "Phases",
    "Schedule",
    "StepConfig",
    "StepMetrics",
    "Transfer",
    "allreduce",
    "build_schedule",
    "exchange",
    "exchanges",
    "ring_state",
    "step_metrics",
    "traffic_factor",
]
