"""The gym's ``terminate_on``: only kinds of event that a part of the scenario can log.

A kind that nothing logs would never match, and the episode would run to its time limit as if
the agent had never met the condition; so a misspelt kind, a kind of a part the scenario lacks
(``dock`` without docking pairs) or a string in place of a list is refused in one line, and a
user controller's own kinds are taken once its class declares them (``event_kinds``).
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROOT

import murcosim
from murcosim.gym import ScenarioEnv
from orchestrator.rl.terminations import RUN_EVENT_KINDS, emitted_kinds

SCENARIOS = ROOT / "scenarios"
SINGLE = SCENARIOS / "bluerov2_heavy_single.toml"
DECLARED = {"observation": ["rov.p[3]"], "action": {"agent.x": (0.0, 1.0)}}

ALARM = """
import murcosim

class Alarm(murcosim.Controller):
    event_kinds = KINDS

    def __init__(self, name, sample_time, settings):
        super().__init__(name, sample_time, [], [f"{name}.raised"])

    def step(self, time, inputs):
        if time >= 0.3:
            self.events.append(("alarm", f"raised at {time:g} s"))
        return [float(time >= 0.3)]
"""


def _alarm_scenario(folder, fmu_dir, kinds: str = '("alarm",)'):
    (folder / "alarm_law.py").write_text(ALARM.replace("KINDS", kinds))
    path = folder / "alarm.toml"
    path.write_text(
        "[simulation]\nstop_time = 2.0\n[components.rov]\n"
        f'fmu = "{(fmu_dir / "BlueROV2Heavy.fmu").as_posix()}"\n'
        '[controllers.watch]\nclass = "alarm_law:Alarm"\nsample_time = 0.1\n'
    )
    return path


def _refused(path, fmu_dir, terminate_on, expected: str) -> None:
    with pytest.raises(murcosim.ScenarioError) as error:
        ScenarioEnv(path, fmu_dir=fmu_dir, terminate_on=terminate_on, **DECLARED)
    message = str(error.value)
    assert "\n" not in message and message.startswith(expected), message


def test_misspelt_or_absent_kinds_are_refused_in_one_line(fmu_dir):
    _refused(
        SINGLE,
        fmu_dir,
        ["terminated", "stpo"],
        f"terminate_on: 'stpo': no part of {SINGLE} logs events of that kind (did you mean 'stop'?",
    )
    # docking events need docking pairs; bluerov2_heavy_single has none
    _refused(SINGLE, fmu_dir, ["dock"], f"terminate_on: 'dock': no part of {SINGLE} logs")
    # a string would be taken letter by letter
    _refused(
        SINGLE, fmu_dir, "dock", "terminate_on: expected a list of event kinds, got the string"
    )


def test_docking_events_are_taken_where_the_scenario_docks(fmu_dir):
    scenario = murcosim.load_scenario(SCENARIOS / "docking_mpc.toml")
    kinds = emitted_kinds(scenario, str(SCENARIOS / "docking_mpc.toml"))
    assert {"dock", "dock_rejected", "mpc_fallback"} <= kinds
    assert "undock" not in kinds  # no scheduled undock in docking_mpc
    undocking = emitted_kinds(murcosim.load_scenario(SCENARIOS / "dock_move_undock.toml"), "x")
    assert {"dock", "undock"} <= undocking


def test_a_user_controllers_declared_kind_ends_the_episode(fmu_dir, tmp_path):
    """The controller declares ``alarm`` and logs it from 0.3 s: asked for, it ends the
    episode there (terminated, not truncated at the 2 s limit); misspelt, it is refused with
    the declared kind suggested."""
    path = _alarm_scenario(tmp_path, fmu_dir)
    _refused(path, fmu_dir, ["alarn"], f"terminate_on: 'alarn': no part of {path} logs")
    env = ScenarioEnv(path, fmu_dir=fmu_dir, terminate_on=["alarm"], **DECLARED)
    env.reset(seed=0)
    for _ in range(30):
        _, _, terminated, truncated, info = env.step(np.zeros(1, np.float32))
        if terminated or truncated:
            break
    env.close()
    assert terminated and not truncated
    assert "alarm" in [event[1] for event in info["events"]]
    assert 0.3 <= info["time"] < 0.5


def test_undeclared_kinds_of_a_user_controller_are_refused(fmu_dir, tmp_path):
    """Without a declaration the kind is not taken; a declaration that is no tuple of names
    (a string, which would read letter by letter) is one line naming the controller."""
    (tmp_path / "none").mkdir()
    (tmp_path / "string").mkdir()
    none = _alarm_scenario(tmp_path / "none", fmu_dir, "()")
    _refused(none, fmu_dir, ["alarm"], "terminate_on: 'alarm'")
    path = _alarm_scenario(tmp_path / "string", fmu_dir, '"alarm"')
    _refused(
        path,
        fmu_dir,
        ["alarm"],
        f"{path}: controllers.watch: event_kinds: expected a tuple of event names, got 'alarm'",
    )
    with pytest.raises(murcosim.ScenarioError, match="event_kinds: expected a tuple"):
        murcosim.run(path, progress=False)


def test_every_styled_kind_is_one_a_scenario_can_log():
    """The kinds the plots know (one style each) are the run's, the coupling's or a built-in
    controller's declared kinds: a kind added to the plots without a declaration fails here."""
    from orchestrator.controllers.mpc.supervisor import DockingSupervisor
    from orchestrator.controllers.rendezvous import RendezvousController
    from orchestrator.visualization.style import EVENT_STYLES

    declared = {*RUN_EVENT_KINDS, "dock", "dock_rejected", "undock"}
    declared |= {*RendezvousController.event_kinds, *DockingSupervisor.event_kinds}
    assert set(EVENT_STYLES) <= declared, set(EVENT_STYLES) - declared
