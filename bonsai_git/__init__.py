"""bonsai-git: turn an agent's flat MEMORY.md into a lossless memory tree inside its git workspace."""

__version__ = "0.1.0"
