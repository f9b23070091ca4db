"""Constraint coupling of rigid bodies (Udwadia-Kalaba), as pure functions of NumPy arrays."""
