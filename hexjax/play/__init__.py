"""Playing what you trained: one agent API under a terminal UI, a web page and engine protocols.

agent = Agent.shipped("hex", size=7)            # or Agent.from_checkpoint("runs/hex7")
match = Match(agent.game)
match.play("d4")                                # a human move, validated
reply = agent.move(match.state, simulations=64) # action, search policy, value
match.play(reply.action)
"""

from hexjax.play.agent import Agent, Agents
from hexjax.play.agent_move import AgentMove
from hexjax.play.match import Match, MoveError
from hexjax.training.models import ModelError, shipped_models

__all__ = ["Agent", "AgentMove", "Agents", "Match", "ModelError", "MoveError", "shipped_models"]
