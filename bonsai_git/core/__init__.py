"""bonsai_git.core."""
