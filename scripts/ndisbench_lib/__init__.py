"""Host orchestration for ndisbench (Python 3 standard library only)."""
