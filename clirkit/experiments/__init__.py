"""Experiment files shipped with clirkit (``demo.toml``: what ``clirkit demo`` runs)."""
