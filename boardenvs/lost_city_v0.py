"""``lost_city_v0``: Star of the Lost City. See :mod:`boardenvs.lost_city.env` for the full description."""

from boardenvs.lost_city.env import LostCityGame, env, raw_env

__all__ = ["LostCityGame", "env", "raw_env"]
