"""Root conftest: test-only plugins shared by tests/ (pytester for plugin tests, the fake OpenAI server)."""

pytest_plugins = ["pytester", "tests.fake_openai"]
