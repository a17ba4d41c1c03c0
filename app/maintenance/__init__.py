"""Operator tasks on the stored vectors and texts of memories and messages: the embedding
model's check at start, re-embedding, rescoring's backfill, re-rendering."""
