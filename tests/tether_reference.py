"""References for the tether: the closed-form shape of a cable in a uniform current and the same
cable in MoorDyn (Hall and Goupee 2015), the lumped-mass library of the offshore industry.

Neither shares code with ``MurCoSim.Tethers.Tether``. The closed form is the equilibrium of an
inextensible, neutrally buoyant cable loaded only by normal drag q sin^2(phi) per unit length
(q = 1/2 rho d C_n U^2, phi the angle between the cable and the flow): the tangential balance
gives a constant tension T, the normal one T dphi/ds = -q sin^2(phi), that is
cot(phi(s)) = cot(phi_0) + (q/T) s, and integrating (cos phi, sin phi) over s with u = cot(phi):
x(s) = (T/q) (sqrt(1 + u^2) - sqrt(1 + u_0^2)), y(s) = (T/q) (asinh u - asinh u_0). An
elastic cable under the constant tension T is the same curve, every length stretched by
1 + T/EA.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class CurrentCase:
    """A cable held at both ends in the horizontal plane, the current flowing along -x (NED
    north) so that s, from end a at the origin, runs towards the end where the cable lies more
    along the flow. Defaults: the Fathom tether (d 7.6 mm) with C_n = 1.2 in 0.5 m/s."""

    length: float = 8.0  # m
    diameter: float = 0.0076  # m
    c_n: float = 1.2
    speed: float = 0.5  # m/s
    tension: float = 20.0  # N
    angle: float = np.radians(80.0)  # rad, phi_0 at end a
    rho: float = 1000.0  # kg/m3
    segments: int = 10
    axial_stiffness: float = 1e5  # N

    @property
    def load(self) -> float:
        """q = 1/2 rho d C_n U^2 (N/m)."""
        return 0.5 * self.rho * self.diameter * self.c_n * self.speed**2

    @property
    def neutral_mass(self) -> float:
        """Mass per unit length of a neutrally buoyant cable (kg/m)."""
        return self.rho * np.pi * self.diameter**2 / 4

    def shape(
        self, s: np.ndarray, tension: float | None = None, angle: float | None = None
    ) -> np.ndarray:
        """Points (x, y) of the closed form at unstretched arc lengths s from end a (m), for a
        tension (N) and an angle at end a (rad), by default the case's. The tension being
        constant, the elastic cable is an inextensible one stretched by 1 + T/EA throughout."""
        T = self.tension if tension is None else tension
        u0 = 1 / np.tan(self.angle if angle is None else angle)
        u = u0 + self.load / T * np.asarray(s) * (1 + T / self.axial_stiffness)
        k = T / self.load
        return np.c_[
            k * (np.sqrt(1 + u**2) - np.sqrt(1 + u0**2)), k * (np.arcsinh(u) - np.arcsinh(u0))
        ]

    @property
    def end(self) -> np.ndarray:
        """End b (x, y) of the closed form (m)."""
        return self.shape(np.array([self.length]))[0]


def moordyn_current_case(case: CurrentCase, duration: float = 60.0) -> tuple[np.ndarray, ...]:
    """The case in MoorDyn: steady state after ``duration`` (s). MoorDyn sets no current on
    its own without water-kinematics files, so the ends move at the current's opposite velocity
    through still water (the same relative flow; neutrally buoyant and steady, nothing else
    differs). Returns the forces on ends a and b and the node positions relative to end a, all
    in the case's frame (x, y, z with z down), N and m."""
    text = f"""MoorDyn input file
tether in a uniform current
---------------------- LINE TYPES ----------------------
TypeName Diam Mass/m EA BA/-zeta EI Cd Ca CdAx CaAx
(name) (m) (kg/m) (N) (N-s/-) (N-m^2) (-) (-) (-) (-)
tether {case.diameter!r} {case.neutral_mass!r} {case.axial_stiffness!r} -1.0 0 {case.c_n!r} 1.0 0 0
---------------------- POINTS ----------------------
ID Attachment X Y Z Mass Volume CdA Ca
(#) (-) (m) (m) (m) (kg) (m^3) (m^2) (-)
1 Coupled 0 0 -10 0 0 0 0
2 Coupled {case.end[0]!r} {-case.end[1]!r} -10 0 0 0 0
---------------------- LINES ----------------------
ID LineType AttachA AttachB UnstrLen NumSegs LineOutputs
(#) (name) (#) (#) (m) (-) (-)
1 tether 1 2 {case.length!r} {case.segments} -
---------------------- OPTIONS ----------------------
1e-4 dtM
9.81 g
{case.rho!r} rho
100 WtrDpth
----------------------- need this line ----------------------
"""
    # MoorDyn's z is up: the case's (x, y, z down) is MoorDyn's (x, -y, -z).
    flip = np.array([1.0, -1.0, -1.0])
    x0 = np.array([0.0, 0.0, -10.0, case.end[0], -case.end[1], -10.0])
    v = np.array([case.speed, 0.0, 0.0] * 2)
    forces, nodes = run_moordyn(text, x0, v, duration, case.segments)
    return forces[:3] * flip, forces[3:] * flip, (nodes - nodes[0]) * flip


def moordyn_slack_pull(duration: float = 0.1) -> np.ndarray:
    """MoorDyn's force (N, MoorDyn's frame) on the end of a slack line pulled along itself at
    1 m/s for ``duration`` (s): 8 m of neutrally buoyant line in 10 segments, EA 1e4 N, zeta 1,
    no drag and no added mass, its ends 4 m apart."""
    mass = 1000.0 * np.pi * 0.0076**2 / 4
    text = f"""MoorDyn input file
slack line pulled along itself
---------------------- LINE TYPES ----------------------
TypeName Diam Mass/m EA BA/-zeta EI Cd Ca CdAx CaAx
(name) (m) (kg/m) (N) (N-s/-) (N-m^2) (-) (-) (-) (-)
tether 0.0076 {mass!r} 1e4 -1.0 0 0 0 0 0
---------------------- POINTS ----------------------
ID Attachment X Y Z Mass Volume CdA Ca
(#) (-) (m) (m) (m) (kg) (m^3) (m^2) (-)
1 Coupled 0 0 -10 0 0 0 0
2 Coupled 4 0 -10 0 0 0 0
---------------------- LINES ----------------------
ID LineType AttachA AttachB UnstrLen NumSegs LineOutputs
(#) (name) (#) (#) (m) (-) (-)
1 tether 1 2 8.0 10 -
---------------------- OPTIONS ----------------------
1e-5 dtM
9.81 g
1000.0 rho
100 WtrDpth
----------------------- need this line ----------------------
"""
    x0 = np.array([0.0, 0.0, -10.0, 4.0, 0.0, -10.0])
    v = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0])
    forces, _ = run_moordyn(text, x0, v, duration, 10)
    return forces[3:]


def run_moordyn(
    text: str, x0: np.ndarray, v: np.ndarray, duration: float, segments: int
) -> tuple[np.ndarray, np.ndarray]:
    """Run a MoorDyn input file's ``text`` with its coupled points starting at ``x0`` and
    moving at ``v`` (m, m/s, MoorDyn's frame) for ``duration`` (s) in steps of 0.01 s; the
    forces on the coupled points (N) and the first line's node positions (m) at the end."""
    import moordyn

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "lines.txt"
        path.write_text(text)
        here, stdout = os.getcwd(), os.dup(1)
        os.chdir(folder)  # MoorDyn writes its log next to the input file
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 1)  # and its progress to the C library's standard output
        try:
            system = moordyn.Create(str(path))
            moordyn.SetVerbosity(system, moordyn.LEVEL_NONE)
            moordyn.Init_NoIC(system, x0, v)
            dt, steps = 0.01, int(round(duration / 0.01))
            for k in range(steps):
                forces = np.array(moordyn.Step(system, x0 + v * (k + 1) * dt, v, k * dt, dt))
            line = moordyn.GetLine(system, 1)
            nodes = np.array([moordyn.GetLineNodePos(line, i) for i in range(segments + 1)])
            moordyn.Close(system)
        finally:
            os.dup2(stdout, 1)
            os.close(stdout)
            os.close(quiet)
            os.chdir(here)
    return forces, nodes
