"""The judge's own request settings, so model and judge can be different servers.

Inherited from the model's settings when the judge's are not set: base URL, API key variable,
timeout (and seed, retries, cache, concurrency). Never inherited: temperature (the judge's is 0
unless ``llm_judge_temperature``), max tokens and extra body, which belong to the model under test.
"""

from __future__ import annotations

from typing import Any

# judge option -> model option it falls back to (None: no fallback, the judge's value or default)
_FALLBACK = {
    "judge_base_url": "base_url",
    "judge_api_key_env": "api_key_env",
    "judge_timeout": "timeout",
    "judge_temperature": None,
    "judge_max_tokens": None,
    "judge_extra_body": None,
}
_DEFAULTS: dict[str, Any] = {"judge_temperature": 0.0, "judge_extra_body": {}}
# Sent as max_tokens when llm_judge_max_tokens is unset: a judge reply is a verdict and a few
# reasons, and a small model that ignores the schema must not write to its context's end.
DEFAULT_MAX_TOKENS = 1024


def judge_settings(settings: Any) -> Any:
    """``settings`` with the model request fields replaced by the judge's (idempotent).

    Anything but a :class:`~pytest_llmeval.options.Settings` (a hand-made namespace) is
    returned unchanged.
    """
    import dataclasses

    from pytest_llmeval.options import Settings

    if not isinstance(settings, Settings) or settings.role == "judge":
        return settings
    changes: dict[str, Any] = {}
    for judge_name, model_name in _FALLBACK.items():
        value = getattr(settings, judge_name)
        if value is None and model_name is not None:
            value = getattr(settings, model_name)
        if value is None:
            value = _DEFAULTS.get(judge_name)
        changes[judge_name.removeprefix("judge_")] = value
    # error messages name the judge's keys
    return dataclasses.replace(
        settings, **changes, role="judge", default_max_tokens=DEFAULT_MAX_TOKENS
    )
