"""Sorry! (three-pawn edition): rules (``rules.py``), board and deck tables, and the env encoding."""
