"""Invalid configurations give the documented errors: the field, its value and its range."""

import math

import pytest

from ddpcore import ConfigError, Phases, StepConfig


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"gpus": 1}, "gpus"),
        ({"gpus": 1025}, "gpus"),
        ({"gpus": 8.5}, "gpus"),
        ({"gpus": True}, "gpus"),
        ({"stragglers": (8,)}, "straggler"),
        ({"stragglers": (-1,)}, "straggler"),
        ({"slowdown": 0.9}, "slowdown"),
        ({"slowdown": 10.5}, "slowdown"),
        ({"slowdown": math.nan}, "slowdown"),
        ({"slowdown": math.inf}, "slowdown"),
        ({"slowdown": "2"}, "slowdown"),
        ({"tensor_activity": 1.5}, "tensor_activity"),
        ({"prefetch_residual_ms": -1}, "prefetch_residual_ms"),
        ({"prefetch": "yes"}, "prefetch"),
    ],
)
def test_invalid_config_names_field_value_and_range(kwargs, field):
    with pytest.raises(ConfigError) as info:
        StepConfig(**kwargs)
    assert info.value.field == field
    message = str(info.value)
    assert message.startswith(field + ":")
    given = next(iter(kwargs.values()))
    assert repr(given[0] if isinstance(given, tuple) else given) in message
    assert "allowed" in message


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"load": -1}, "load_ms"), ({"forward": 0}, "forward_ms"), ({"optimizer": math.inf}, "optimizer_ms")],
)
def test_invalid_phase(kwargs, field):
    with pytest.raises(ConfigError, match=field):
        Phases(**kwargs)


def test_load_may_be_zero():
    """A step with nothing to load: 10 + 16 ms of compute, the 10 ms AllReduce and the 2 ms optimizer."""
    from ddpcore import StepConfig, step_metrics

    assert step_metrics(StepConfig(phases=Phases(load=0))).step_ms == pytest.approx(38.0)
