"""Context Engine: context as a service for LLM agents."""
