"""Sensor models: noisy, late and sometimes missing measurements of a body's true state.

One module per sensor, each a class of NumPy arrays that draws its noise from a NumPy
``Generator`` it is given, so a stream is reproducible from its seed and can be tested alone on
synthetic true signals. Noise is specified in continuous-time units (densities, Gauss-Markov
drivers with their time constants) and discretised exactly for the sensor's own sample
interval, so the statistics do not depend on the sample rate, and never on the integrator's
step. Every model draws the same count of random numbers at every sample, valid or not, so a
stream stays aligned when validity changes.

Frames: NED inertial (m), the body frame (x forward, y starboard, z down) and each sensor's
own frame, fixed on the body by a :class:`~orchestrator.sensors.mount.Mount` (its axes are
the body's rotated by zyx Euler angles). The controllers that run these models in a
co-simulation are in ``orchestrator.controllers.sensing``.
"""
