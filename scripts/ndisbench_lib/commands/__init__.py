"""The commands of scripts/ndisbench (run, bench, soak, pair, test, setup, ...) and the command line."""
