"""Regression testing: gates that decide the exit status, baseline comparison, repeats, several models.

Stdlib only, imported lazily by the session; ``stats`` holds the exact tests.
"""
