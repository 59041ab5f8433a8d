"""The measured facts the page states agree with the raw measurement kept in docs/data/."""

from __future__ import annotations

import json

from ddpview.i18n import H200_PROBE
from paths import ROOT


def test_h200_probe_matches_its_raw_samples():
    data = json.loads((ROOT / H200_PROBE.data_file).read_text())
    assert data["gpu"] == H200_PROBE.gpu and data["sms"] == H200_PROBE.sms
    phases = {p["phase"]: p for p in data["phases"]}
    spin = phases["spin_one_block"]["util_samples"]
    assert len(spin) == H200_PROBE.spin_samples
    assert all(sample == 100 * H200_PROBE.spin_util for sample in spin)
    assert all(sample == 100 for sample in phases["matmul_bf16"]["util_samples"])
    assert all(sample == 0 for sample in phases["idle"]["util_samples"])
