"""End-to-end: the overlap mode shows buckets on a comm lane and compares both modes for the same inputs."""

from __future__ import annotations

import pytest
from pages import expect_hash, value

from ddpcore import StepConfig
from ddpcore.model import Link
from ddpcore.model.metrics import compare_modes

pytestmark = pytest.mark.browser


def test_overlap_mode_compares_and_keeps_the_straggler_visible(open_page):
    page, watch = open_page("#slowdown=2")
    assert not page.is_visible("[data-testid=modes]")
    page.select_option("[data-testid=mode]", "overlap")
    both = compare_modes(StepConfig(slowdown=2.0, link=Link(), mode="overlap"))
    assert value(page, "step-time") == pytest.approx(both["overlap"].step_ms, rel=1e-12)
    assert value(page, "sequential-step-time") == pytest.approx(both["sequential"].step_ms, rel=1e-12)
    assert value(page, "sequential-step-time") == pytest.approx(70, abs=1e-9)
    assert value(page, "overlap-step-time") < value(page, "sequential-step-time")
    assert value(page, "overlap-exposed-comm") < value(page, "sequential-exposed-comm")
    assert value(page, "overlap-straggler-cost") == pytest.approx(both["overlap"].straggler_cost_ms, rel=1e-12)
    assert value(page, "overlap-straggler-cost") > 20
    lanes = page.locator("[data-testid=timeline] [data-testid=lane]")
    assert lanes.count() == 8
    assert lanes.nth(0).locator("[data-bucket]").count() == 9
    expect_hash(page, contains="mode=overlap")
    assert page.is_visible("#overlap-title")
    page.fill("[data-testid=bandwidth]", "5")
    assert value(page, "overlap-exposed-comm") > both["overlap"].exposed_comm_ms
    for _ in range(14):
        page.click("[data-testid=next-step]")
    assert page.locator("[data-testid=ring] .chunk[data-final='1']").count() == 64
    watch.assert_clean()
