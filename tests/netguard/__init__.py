"""Blocks network access that leaves this machine, in tests and in the processes they start."""
