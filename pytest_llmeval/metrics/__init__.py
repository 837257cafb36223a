"""Graders: one module per metric. Nothing heavy is imported here."""
