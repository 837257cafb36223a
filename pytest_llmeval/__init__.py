"""pytest-llmeval: LLM regression testing as a pytest plugin."""
__version__ = "0.1.0"
