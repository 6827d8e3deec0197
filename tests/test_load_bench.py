"""bench/load.py's figures that do not need a server: the interval it prints beside the log's p95
ratio must say when a run cannot tell a cost from noise."""

from __future__ import annotations

import numpy as np

from bench.load import _ratio_interval


def rounds(times) -> list[list[float]]:
    return [list(times[start:start + 50]) for start in range(0, len(times), 50)]


def test_the_ratio_interval_covers_one_for_the_same_machine_and_finds_a_real_cost():
    generator = np.random.default_rng(7)
    off = generator.lognormal(-2.0, 0.6, 600)
    same = generator.permutation(off)  # the same answers in other rounds
    low, high = _ratio_interval(rounds(off), rounds(same))
    assert low < 1.0 < high and high - low < 0.4
    slower = same * 1.3  # every answer 30 % slower
    low, high = _ratio_interval(rounds(off), rounds(slower))
    assert 1.05 < low < 1.3 < high


def test_a_round_that_was_slow_as_a_whole_widens_the_interval():
    """The times of one round share the machine's moment: one bad round is one draw, not fifty."""
    generator = np.random.default_rng(8)
    off = rounds(generator.lognormal(-2.0, 0.6, 600))
    on = rounds(generator.permutation(np.concatenate(off)))
    calm = _ratio_interval(off, on)
    on[3] = [t * 3 for t in on[3]]  # the machine was busy for one round
    low, high = _ratio_interval(off, on)
    assert high - low > 2 * (calm[1] - calm[0])
