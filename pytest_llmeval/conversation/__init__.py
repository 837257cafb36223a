"""Conversations: a sample whose messages hold several expected assistant turns, graded turn by turn."""
