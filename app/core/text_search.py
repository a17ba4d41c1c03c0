"""SQL of PostgreSQL's full-text search that the memory search and the session's recall share."""

# A tsquery that matches any of the words bound as `:words` (a text[]), each quoted as a literal.
ANY_WORD = (
    "to_tsquery('simple', array_to_string(ARRAY(SELECT quote_literal(w) "
    "FROM unnest(CAST(:words AS text[])) w), ' | '))"
)
