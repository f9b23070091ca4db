"""Camera-constrained rendezvous by model predictive control (Nielsen 2018, Part II, Ch. 7-8)."""
