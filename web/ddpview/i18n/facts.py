"""Measured facts the page states, in one place; tests check them against the raw data in docs/data/."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["H200_PROBE", "UtilProbe"]


@dataclass(frozen=True)
class UtilProbe:
    """What nvidia-smi's utilization read while one small kernel spun on one SM (docs/measurements.md)."""

    gpu: str
    sms: int
    spin_samples: int
    spin_util: float
    spin_sm_busy: float
    date: str
    driver: str
    data_file: str


H200_PROBE = UtilProbe(
    gpu="NVIDIA H200",
    sms=132,
    spin_samples=33,
    spin_util=1.0,
    spin_sm_busy=0.0004,
    date="2026-11-29",
    driver="580",
    data_file="docs/data/h200_util_probe.json",
)
