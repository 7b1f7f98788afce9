"""Tests of one `bonsai-git` command each, through the CLI (mirrors bonsai_git/commands/).

A package, so that tests/commands/test_reindex.py and tests/test_reindex.py (the library
module's tests) can share a base name; support.py and living_tree.py import as before,
from tests/ (the rootdir conftest puts it on sys.path)."""
