"""pytest11 entry point: hook implementations and fixtures, each a few lines.

Everything heavy lives elsewhere and is imported lazily; loading this module costs
an unrelated pytest run almost nothing.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from pytest_llmeval import options
from pytest_llmeval.grading.pipeline import PIPELINE_KEY, get_pipeline
from pytest_llmeval.run_state import SESSION_KEY
from pytest_llmeval.session import LLMEvalSession, get_session

HELPER_RESULTS_KEY = pytest.StashKey[list[Any]]()
GOLD_MARKER = "llmeval_gold"


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from pytest_llmeval import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    options.addoption(parser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "llmeval: a gold sample graded by pytest-llmeval")
    config.addinivalue_line(
        "markers",
        f"{GOLD_MARKER}(*paths): parametrize the llm_sample fixture over the samples of these gold files",
    )
    llm_session = LLMEvalSession(config, options.resolve(config))
    from pytest_llmeval.redact import register_secret

    # The controller writes what workers report: it must know the key to redact it too.
    register_secret(os.environ.get(llm_session.settings.api_key_env or "OPENAI_API_KEY"))
    config.stash[SESSION_KEY] = llm_session
    config.stash[PIPELINE_KEY] = llm_session.grading
    llm_session.load_baseline()
    llm_session.grading.check()
    llm_session.check_paths()
    merged = config.pluginmanager.get_plugin("llmeval-merge")  # python -m pytest_llmeval merge
    if merged is not None:
        llm_session.adopt_shards(merged.inputs(llm_session.settings))
    from pytest_llmeval import shard

    shard.register(config, llm_session.settings)  # --llm-shard: deselects the other shards' tests
    # The session also collects per-sample records from pytest_runtest_logreport
    # (which gets no config argument), on the controller and in plain runs alike.
    config.pluginmanager.register(llm_session, "llmeval-session")
    if config.pluginmanager.hasplugin("xdist") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(XdistController(config), "llmeval-xdist")
    _handle_sigterm_like_ctrl_c(config)


def _handle_sigterm_like_ctrl_c(config: pytest.Config) -> None:
    """A CI cancel sends SIGTERM: stop as Ctrl-C does, so the reports are written (incomplete)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGTERM"):
        return
    previous = signal.getsignal(signal.SIGTERM)
    if previous not in (signal.SIG_DFL, None):
        return  # someone else (a CI runner, another plugin) handles it

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt("SIGTERM")

    def restore() -> None:
        signal.signal(signal.SIGTERM, previous)

    signal.signal(signal.SIGTERM, interrupt)
    config.add_cleanup(restore)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix != ".jsonl":
        return None
    from pytest_llmeval.collect_hints import collects_gold
    from pytest_llmeval.collector import JsonlFile

    if collects_gold(file_path, get_session(parent.config).settings.gold_files, parent.session):
        return JsonlFile.from_parent(parent, path=file_path)
    return None


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Follow each real directory once (symlink loops, two links to one directory)."""
    if not collection_path.is_dir() or SESSION_KEY not in config.stash:
        return None
    from pytest_llmeval.dirs import is_repeat_directory

    return True if is_repeat_directory(collection_path, get_session(config).seen_dirs) else None


def pytest_collection_finish(session: pytest.Session) -> None:
    if not session.config.option.collectonly:
        llm_session = get_session(session.config)
        why = get_pipeline(session.config).prefetch(session.items)  # a batch left unfinished
        llm_session.incomplete_reason = llm_session.incomplete_reason or why


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "llm_sample" in metafunc.fixturenames:
        from pytest_llmeval.fixtures import parametrize_samples

        parametrize_samples(metafunc, GOLD_MARKER)


@pytest.fixture
def llm_sample(request: pytest.FixtureRequest) -> Any:
    """The gold sample of this test case (with ``.answer``), from ``@pytest.mark.llmeval_gold(path)``."""
    from pytest_llmeval.fixtures import LLMSample

    sample = LLMSample(request.param, get_pipeline(request.config))
    if sample.from_model:
        sample.answer_obj  # noqa: B018 - a failed model call is an error in setup, not a test failure
    return sample


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    if getattr(item, "is_llmeval_gold", False):
        return (yield)
    from pytest_llmeval.fixtures import recording

    with recording(item, get_pipeline(item.config)) as results:
        item.stash[HELPER_RESULTS_KEY] = results
        return (yield)


@pytest.hookimpl(tryfirst=True, specname="pytest_runtest_makereport")
def pytest_runtest_makereport_for_errors(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> pytest.TestReport | None:
    """Our own setup errors (bad line, model, judge or grader failure) as one explained line.

    Built here, before pytest's own report formats a traceback through the plugin's stack
    (0.1-0.25 s an item): an error item costs about what a graded item costs.
    """
    if call.when != "setup" or call.excinfo is None:
        return None
    from pytest_llmeval.collector import error_report

    return error_report(item, call)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if isinstance(report.longrepr, str) and getattr(item, "is_llmeval_gold", False):
        from pytest_llmeval.redact import redact

        report.longrepr = redact(report.longrepr)
    if (
        report.skipped
        and isinstance(report.longrepr, tuple)
        and getattr(item, "is_llmeval_gold", False)
    ):
        path, line, _ = item.reportinfo()  # the gold line, not the plugin line that skipped it
        report.longrepr = (str(path), (line or 0) + 1, report.longrepr[2])
    record = get_session(item.config).record_for(
        item, report, item.stash.get(HELPER_RESULTS_KEY, None)
    )
    if record is not None:
        report.llmeval = record  # type: ignore[attr-defined]
    return report


def pytest_report_teststatus(
    report: pytest.TestReport, config: pytest.Config
) -> tuple[str, str, Any] | None:
    record = getattr(report, "llmeval", None)
    if record and report.when == "call" and report.passed and record["status"] == "acceptable":
        return "acceptable", "A", ("ACCEPTABLE", {"yellow": True})
    return None


@pytest.hookimpl(tryfirst=True, specname="pytest_sessionfinish")
def pytest_sessionfinish_freeze(session: pytest.Session, exitstatus: int) -> None:
    """Before the JUnit XML is written: the run frozen (its corrected pass rates are suite properties)."""
    get_session(session.config).end_run(session, exitstatus)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    get_session(session.config).finish(session)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    get_session(config).print_summary(terminalreporter)
    if not hasattr(config, "workerinput"):
        from pytest_llmeval.collect_hints import write_empty_folder_lines

        write_empty_folder_lines(terminalreporter, config, get_session(config).settings.gold_files)


class XdistController:
    """Registered on the xdist controller only: merges the workers' model statistics."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        budget_file = get_pipeline(
            self.config
        ).budget.shared_file()  # --llm-budget-*: one spend for all workers
        if budget_file is not None:
            node.workerinput["llmeval_budget_file"] = budget_file

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem: str, report: pytest.TestReport, sched: Any) -> None:
        """A worker died running a sample: the sample is an error item and the run is incomplete."""
        record = get_session(self.config).crash_record(crashitem, str(report.longrepr))
        if record is not None:
            report.llmeval = record  # type: ignore[attr-defined]

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        llm_session = get_session(self.config)
        llm_session.merge_worker_output(getattr(node, "workeroutput", {}))
        run_id = (getattr(node, "workerinput", None) or {}).get("testrunuid")
        if run_id:
            llm_session.worker_run_ids.add(str(run_id))
