"""Datasets for DataLoader tests that run in worker processes: importable by the workers and
light (they import the library under test by name, never both libraries)."""
