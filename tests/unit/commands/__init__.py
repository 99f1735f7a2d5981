"""Tests of scripts/ndisbench_lib/commands/: the bench's subcommands."""
