"""Visualization: the plots of a run (``plots.py`` with the summary, navigation and docking-gap
panels in one style and palette) and the three.js replay page (``replay/``)."""
