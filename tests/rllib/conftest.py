"""The RLlib tests need the ``rllib`` extra, which the README's test command and CI install."""

try:
    import ray.rllib  # noqa: F401
except ImportError as err:  # a clear failure, not a silent skip
    raise ImportError(
        "tests/rllib needs the rllib extra: pip install -e '.[train,render,test,rllib]' "
        "(the README's test command installs it)"
    ) from err
