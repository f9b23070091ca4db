"""Reinforcement-learning environments over scenarios; the public names are in
``murcosim.gym``."""
