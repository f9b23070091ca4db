"""Noise processes discretised exactly for a sample interval (Maybeck 1979, Sec. 4.9)."""

from __future__ import annotations

import math

import numpy as np


def white_noise_std(density: float, interval: float) -> float:
    """Standard deviation of one sample of band-limited white noise of ``density`` (units
    /sqrt(Hz)) averaged over ``interval`` (s): density / sqrt(interval)."""
    return density / math.sqrt(interval)


class GaussMarkov:
    """First-order Gauss-Markov process b' = -b / tau + w, w white of density ``driving``
    (units/s/sqrt(Hz)), with stationary standard deviation driving sqrt(tau / 2).

    Each step is the exact discrete transition over the interval dt (Maybeck 1979, eq. 4-114;
    the form of the RotorS and UUV Simulator IMUs):

        b[k+1] = exp(-dt / tau) b[k] + driving sqrt(tau / 2 (1 - exp(-2 dt / tau))) xi,

    xi standard normal, so the process has the same statistics at any sample rate. ``tau`` may
    be ``inf``: a random walk of the same density (b[k+1] = b[k] + driving sqrt(dt) xi).
    """

    def __init__(self, driving: float, tau: float, interval: float) -> None:
        if interval <= 0 or tau <= 0:
            raise ValueError(f"expected positive interval and time constant, got {interval}, {tau}")
        self.decay = math.exp(-interval / tau)
        if math.isinf(tau):
            self.step_std = driving * math.sqrt(interval)
        else:
            self.step_std = driving * math.sqrt(tau / 2 * -math.expm1(-2 * interval / tau))
        self.stationary_std = driving * math.sqrt(tau / 2) if math.isfinite(tau) else math.inf

    def step(self, value: np.ndarray, xi: np.ndarray) -> np.ndarray:
        """The process one interval after ``value``, with standard normal draws ``xi``."""
        return self.decay * value + self.step_std * xi

    def sequence(self, start: np.ndarray, xi: np.ndarray) -> np.ndarray:
        """The values after each of the steps with draws ``xi`` (steps along axis 0), from
        ``start``: the same recursion as :meth:`step`, run as a linear filter."""
        from scipy.signal import lfilter  # 0.7 s of imports: only for long records, not in runs

        initial = np.asarray(start, dtype=float)[np.newaxis] * self.decay
        out, _ = lfilter([self.step_std], [1.0, -self.decay], xi, axis=0, zi=initial)
        return out


class NormalDraws:
    """Standard normal draws of ``rng``, ``size`` numbers per sample, drawn ``block`` samples
    ahead in one call: a call costs NumPy many times what a draw does. A Generator fills an
    array with one normal after the other from its bit stream, holding nothing between calls,
    so the samples are those that one call per sample would give, as long as nothing else
    draws from ``rng`` in between."""

    def __init__(self, rng: np.random.Generator, size: int, block: int = 256) -> None:
        self.rng, self.size, self.block = rng, size, block
        self._rows: list[list[float]] = []
        self._next = 0

    def sample(self) -> list[float]:
        """The next sample's ``size`` draws, plain floats."""
        if self._next == len(self._rows):
            self._rows = self.rng.standard_normal((self.block, self.size)).tolist()
            self._next = 0
        self._next += 1
        return self._rows[self._next - 1]

    def samples(self, n: int) -> np.ndarray:
        """The next ``n`` samples' draws (n, size): those drawn ahead first, then new ones."""
        ahead = self._rows[self._next : self._next + n]
        self._next += len(ahead)
        fresh = self.rng.standard_normal((n - len(ahead), self.size))
        return np.concatenate([np.reshape(ahead, (len(ahead), self.size)), fresh])
