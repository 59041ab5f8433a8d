"""End-to-end: the cluster view agrees with ddpcore and follows its controls."""

from __future__ import annotations

import pytest
from pages import expect_hash, value

from ddpcore.model import ClusterConfig, cluster_step

pytestmark = pytest.mark.browser


def test_cluster_view_matches_the_model(open_page):
    page, watch = open_page()
    page.click("[data-testid=view-cluster]")
    assert page.is_visible("[data-testid=cluster-plot]")
    assert not page.is_visible("[data-testid=ring]")
    expected = cluster_step(ClusterConfig(gpus=4096))
    assert value(page, "cluster-step-time") == pytest.approx(expected.expected_step_ms, rel=1e-12)
    assert value(page, "cluster-efficiency") == pytest.approx(expected.efficiency, rel=1e-12)
    assert value(page, "cluster-p-any") == pytest.approx(1 - (1 - 1e-4) ** 4096, rel=1e-9)
    page.fill("[data-testid=cluster-gpus]", "1000000")
    page.select_option("[data-testid=cluster-ar]", "tree")
    page.fill("[data-testid=cluster-k]", "2")
    expected = cluster_step(ClusterConfig(gpus=1_000_000, allreduce="tree", persistent=2))
    assert value(page, "cluster-gpus") == 1_000_000
    assert value(page, "cluster-step-time") == pytest.approx(expected.expected_step_ms, rel=1e-12)
    assert value(page, "cluster-p-any") == pytest.approx(expected.p_any_straggler, rel=1e-12)
    assert page.get_attribute("[data-testid=cluster-marker]", "data-value") == "1000000"
    expect_hash(page, exact="#view=cluster&gpus=8&straggler=2&slowdown=1&prefetch=0&n=1000000&k=2&ar=tree")
    watch.assert_clean()


def test_cluster_link_and_log_slider(open_page):
    page, watch = open_page("#view=cluster&n=100&cv=0.05&p=0.001&s=3", locale="fr-FR")
    assert page.is_visible("[data-testid=cluster-plot]")
    assert page.get_attribute("[data-testid=view-cluster]", "aria-selected") == "true"
    expected = cluster_step(ClusterConfig(gpus=100, jitter_cv=0.05, straggler_prob=0.001, slowdown=3))
    assert value(page, "cluster-step-time") == pytest.approx(expected.expected_step_ms, rel=1e-12)
    assert "Pas attendu" in page.inner_text("#cluster-values")
    before = value(page, "cluster-gpus")
    page.focus("[data-testid=cluster-gpus-range]")
    for _ in range(50):
        page.keyboard.press("ArrowRight")
    after = value(page, "cluster-gpus")
    assert after > before * 1.5
    assert page.input_value("[data-testid=cluster-gpus]") == str(int(after))
    watch.assert_clean()


def test_tabs_are_keyboard_operable(open_page):
    page, watch = open_page()
    page.focus("[data-testid=view-step]")
    page.keyboard.press("ArrowRight")
    assert page.get_attribute("[data-testid=view-cluster]", "aria-selected") == "true"
    assert page.evaluate("document.activeElement.dataset.testid") == "view-cluster"
    assert page.is_visible("[data-testid=cluster-plot]")
    page.keyboard.press("ArrowLeft")
    assert page.is_visible("[data-testid=ring]")
    watch.assert_clean()
