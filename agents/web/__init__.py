"""Play and watch in the browser (``boardenvs-serve``, the ``web`` extra): a Starlette app whose games
live in SQLite. :mod:`~boardenvs_agents.web.store` keeps every game as its seed, options, seats and
steps; :mod:`~boardenvs_agents.web.session` rebuilds a game, moves it on and says what one seat may see;
:mod:`~boardenvs_agents.web.pages` writes the HTML and ``app.js`` draws it; :mod:`~boardenvs_agents.web.app`
holds the routes. ``docs/web.md`` describes it.
"""
