"""Model layer: providers of answers (OpenAI-compatible, python callable, predictions file) and the cache."""
