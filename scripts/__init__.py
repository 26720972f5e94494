"""The command lines, one module each, installed as ``boardenvs_agents.scripts`` with a console command.

``python scripts/train.py ...`` in a checkout is the same as ``boardenvs-train ...`` after
``pip install``: each module parses its arguments and calls library code; ``main(argv)`` is the entry
point, which returns the exit status (:func:`boardenvs_agents.cli.command`; ``train.py`` and
``train_rllib.py`` also have ``run(argv)``, which returns the final metrics). Not code to import
otherwise: this file makes the folder installable.
"""
