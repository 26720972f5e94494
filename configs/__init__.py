"""The project's configs (``<game>/<algo>.yaml``), installed as ``boardenvs_agents.configs``.

Not code: this file makes the folder a package so that installed console commands find configs by
name (``--config sorry_v0/ppo``); see :func:`boardenvs_agents.config.find_config`.
"""
