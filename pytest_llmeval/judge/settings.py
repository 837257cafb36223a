"""The judge's own request settings, so model and judge can be different servers.

Inherited from the model's settings when the judge's are not set: base URL, API key variable,
timeout (and seed, retries, cache, concurrency). Never inherited: temperature (the judge's is 0
unless ``llm_judge_temperature``), max tokens and extra body, which belong to the model under test.
"""

from __future__ import annotations

from typing import Any

# judge option -> model option it falls back to (None: no fallback, the judge's value or default)
_FALLBACK = {
    "llm_judge_base_url": "llm_base_url",
    "llm_judge_api_key_env": "llm_api_key_env",
    "llm_judge_timeout": "llm_timeout",
    "llm_judge_temperature": None,
    "llm_judge_max_tokens": None,
    "llm_judge_extra_body": None,
}
_DEFAULTS = {"llm_judge_temperature": 0.0, "llm_judge_extra_body": {}}


def judge_settings(settings: Any) -> Any:
    """``settings`` with the model request fields replaced by the judge's (idempotent).

    Anything but a :class:`~pytest_llmeval.options.Settings` (a hand-made namespace) is
    returned unchanged.
    """
    from pytest_llmeval.options import Settings

    if not isinstance(settings, Settings):
        return settings
    values = dict(settings.values)
    for judge_name, model_name in _FALLBACK.items():
        value = values.get(judge_name)
        if value is None and model_name is not None:
            value = values.get(model_name)
        if value is None:
            value = _DEFAULTS.get(judge_name)
        values["llm_" + judge_name.removeprefix("llm_judge_")] = value
    values["llm_role"] = "judge"  # error messages name the judge's flags
    return Settings(values)
