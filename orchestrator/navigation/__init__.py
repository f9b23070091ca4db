"""State estimation: an error-state Kalman filter fusing a vehicle's sensors.

``eskf`` holds the filter (IMU mechanisation, the error state's propagation, the update),
``measurements`` the models of what each aiding sensor measures, ``history`` the replay that
fuses a late measurement at its time of validity. The controller that runs the filter in a
co-simulation is ``orchestrator.controllers.navigation``; its scenario entry is in
``orchestrator.scenario.navigation``.
"""
