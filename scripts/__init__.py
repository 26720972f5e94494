"""The command lines, one module each, installed as ``boardenvs_agents.scripts`` with a console command.

``python scripts/train.py ...`` in a checkout is the same as ``boardenvs-train ...`` after
``pip install``: each module parses its arguments and calls library code; ``main(argv)`` is the entry
point. Not code to import otherwise: this file makes the folder installable.
"""
