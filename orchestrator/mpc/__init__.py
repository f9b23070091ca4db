"""Camera-constrained rendezvous by model predictive control (thesis Part II, Ch. 7-8)."""
