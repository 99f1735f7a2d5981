"""The checks: how each one is judged from the agent's KTAP facts."""
