"""LEAVE this Neighborhood (``neighborhood_v0``): board and decks as tables, pure rules, encoding."""
