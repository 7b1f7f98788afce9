"""Tests of the pure core, one file per bonsai_git/core/ module (mirrors the package)."""
