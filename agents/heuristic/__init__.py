"""Hand-written policies, one module per game."""
