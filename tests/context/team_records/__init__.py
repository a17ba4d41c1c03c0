"""The engineering team's other memories, one record a line (`tests/context/domain_distractors.py`
turns them into memory bodies)."""
