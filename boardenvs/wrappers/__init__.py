"""Views of the games for other APIs: the single-agent Gymnasium env used for training."""

from boardenvs.wrappers.single_agent import FixedOpponents, LearnerView, SingleAgentEnv

__all__ = ["FixedOpponents", "LearnerView", "SingleAgentEnv"]
