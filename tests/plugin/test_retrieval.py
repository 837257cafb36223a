"""Retrieval ranking metrics: worked examples, a trec_eval reference, scikit-learn's difference, properties."""

from __future__ import annotations

import importlib.util
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_llmeval.errors import GraderError, LLMEvalAssertionError
from pytest_llmeval.metrics.base import current_recorder
from pytest_llmeval.metrics.rag.retrieval import (
    RetrievalResult,
    assert_retrieval,
    retrieval_component,
    retrieval_metrics,
)

# A VAT question; the retriever returned five law sections, three of them relevant (ranks 1, 3, 4).
RETURNED = ["mval-3-1", "mval-6-1", "mval-14-1", "mval-8-1", "skatteloven-5-1"]
RELEVANT = ["mval-3-1", "mval-14-1", "mval-8-1"]

METRIC_FIELDS = (
    "modified_precision",
    "ndcg_harmonic",
    "precision_at_k",
    "recall_at_k",
    "hit_rate",
    "mrr",
    "average_precision",
    "ndcg_at_k",
)


def test_harmonic_ndcg_worked_example_five_returned_three_relevant():
    result = retrieval_metrics(RETURNED, RELEVANT)
    # f = [1, 0, 1, 1, 0]; DCG = 1/1 + 1/3 + 1/4 = 19/12
    # m = 3;              IDCG = 1/1 + 1/2 + 1/3 = 11/6
    # nDCG = (19/12) / (11/6) = 19/22 = 0.8636...
    assert result.details["dcg_harmonic"] == pytest.approx(19 / 12)
    assert result.details["idcg_harmonic"] == pytest.approx(11 / 6)
    assert result.ndcg_harmonic == pytest.approx(19 / 22)
    assert result.score == result.ndcg_harmonic
    # all three relevant documents were returned: 3 / |R| = 1
    assert result.modified_precision == 1.0


def test_standard_measures_worked_example_whole_list():
    result = retrieval_metrics(RETURNED, RELEVANT)
    assert result.k is None
    assert result.precision_at_k == pytest.approx(3 / 5)
    assert result.recall_at_k == 1.0
    assert result.hit_rate == 1.0
    assert result.mrr == 1.0
    # AP = (1/1 + 2/3 + 3/4) / 3
    assert result.average_precision == pytest.approx((1 + 2 / 3 + 3 / 4) / 3)
    # log2 discount: DCG = 1/log2(2) + 1/log2(4) + 1/log2(5); IDCG = 1 + 1/log2(3) + 1/log2(4)
    dcg = 1 + 1 / 2 + 1 / math.log2(5)
    idcg = 1 + 1 / math.log2(3) + 1 / 2
    assert result.ndcg_at_k == pytest.approx(dcg / idcg)


def test_missed_relevant_document_lowers_modified_precision_and_idcg_counts_it():
    relevant = [*RELEVANT, "mval-15-10"]  # m = 4, only 3 returned
    result = retrieval_metrics(RETURNED, relevant, k=3)
    assert result.modified_precision == pytest.approx(3 / 4)
    # IDCG over all four known relevant: 1 + 1/2 + 1/3 + 1/4 = 25/12
    assert result.ndcg_harmonic == pytest.approx((19 / 12) / (25 / 12))
    # at k=3 only ranks 1 and 3 count
    assert result.precision_at_k == pytest.approx(2 / 3)
    assert result.recall_at_k == pytest.approx(2 / 4)
    assert result.average_precision == pytest.approx((1 + 2 / 3) / 4)
    assert result.ndcg_at_k == pytest.approx((1 + 1 / 2) / (1 + 1 / math.log2(3) + 1 / 2))
    assert result.details["relevant_missed"] == ["mval-15-10"]
    assert "missed: mval-15-10" in result.explanation


def test_precision_at_k_divides_by_k_even_when_fewer_were_returned():
    result = retrieval_metrics(["a", "b"], ["a"], k=5)
    assert result.precision_at_k == pytest.approx(1 / 5)  # trec_eval's P_5


def test_first_relevant_late_gives_reciprocal_rank_and_k_cut_hides_it():
    ranking = ["x", "y", "z", "a"]
    assert retrieval_metrics(ranking, ["a"]).mrr == pytest.approx(1 / 4)
    cut = retrieval_metrics(ranking, ["a"], k=3)
    assert (cut.mrr, cut.hit_rate, cut.recall_at_k, cut.ndcg_at_k) == (0.0, 0.0, 0.0, 0.0)
    # the team measures ignore k
    assert cut.modified_precision == 1.0
    assert cut.ndcg_harmonic == pytest.approx(1 / 4)


def test_graded_relevance_uses_linear_gains_in_log2_ndcg_and_binary_in_the_team_measures():
    graded = {"a": 3, "b": 1, "c": 2, "d": 0}  # d judged non-relevant
    result = retrieval_metrics(["b", "a", "d", "c"], graded)
    dcg = 1 / math.log2(2) + 3 / math.log2(3) + 0 + 2 / math.log2(5)
    idcg = 3 / math.log2(2) + 2 / math.log2(3) + 1 / math.log2(4)
    assert result.ndcg_at_k == pytest.approx(dcg / idcg)
    # harmonic nDCG is binary: ranks 1, 2, 4 relevant, m = 3
    assert result.ndcg_harmonic == pytest.approx((1 + 1 / 2 + 1 / 4) / (1 + 1 / 2 + 1 / 3))
    assert result.details["relevant"] == {"a": 3.0, "b": 1.0, "c": 2.0}
    assert result.precision_at_k == pytest.approx(3 / 4)


def test_duplicates_count_once_and_the_list_closes_up():
    with_repeats = retrieval_metrics(["a", "x", "a", "b", "x"], ["a", "b"])
    plain = retrieval_metrics(["a", "x", "b"], ["a", "b"])
    for name in METRIC_FIELDS:
        assert getattr(with_repeats, name) == pytest.approx(getattr(plain, name)), name
    assert with_repeats.modified_precision == 1.0  # not 3/2
    assert with_repeats.details["duplicates_dropped"] == ["a", "x"]
    assert "2 repeated id(s) counted once" in with_repeats.explanation


def test_ids_compare_as_strings_and_dict_records_are_accepted():
    records = [{"id": 7, "score": 0.9}, {"doc_id": "9", "score": 0.5}]
    result = retrieval_metrics(records, {"7": 1, 9: 1})
    assert result.modified_precision == 1.0
    assert result.ndcg_harmonic == 1.0


def test_empty_retrieved_list_scores_zero():
    result = retrieval_metrics([], ["a"])
    assert all(getattr(result, name) == 0.0 for name in METRIC_FIELDS)


@pytest.mark.parametrize("relevant", [[], set(), {}, {"a": 0, "b": -1}])
def test_empty_relevant_set_is_a_clear_error(relevant):
    with pytest.raises(ValueError, match="relevant set is empty"):
        retrieval_metrics(["a"], relevant)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"retrieved": "abc", "relevant": ["a"]}, TypeError, "not a single string"),
        ({"retrieved": ["a"], "relevant": "a"}, TypeError, "not a single string"),
        ({"retrieved": ["a"], "relevant": {"a": "high"}}, ValueError, "must be a number"),
        ({"retrieved": ["a"], "relevant": ["a"], "k": 0}, ValueError, "positive integer"),
        ({"retrieved": [{"title": "x"}], "relevant": ["a"]}, ValueError, "id keys"),
    ],
)
def test_bad_inputs_are_rejected(kwargs, error, match):
    with pytest.raises(error, match=match):
        retrieval_metrics(**kwargs)


# --- assert_retrieval ------------------------------------------------------------------------


def test_assert_retrieval_passes_and_records_the_result():
    recorded: list = []
    token = current_recorder.set(recorded)
    try:
        result = assert_retrieval(RETURNED, RELEVANT, min_ndcg=0.85, min_precision=1.0)
    finally:
        current_recorder.reset(token)
    assert result.passed
    assert recorded == [result]
    assert result.explanation.startswith(
        "passed: nDCG (harmonic discount, whole list) 0.864 >= 0.85"
    )


def test_assert_retrieval_failure_names_metric_value_and_threshold():
    with pytest.raises(LLMEvalAssertionError) as info:
        assert_retrieval(RETURNED, [*RELEVANT, "mval-15-10"], k=3, min_ndcg=0.9, min_recall=0.5)
    message = str(info.value)
    assert "nDCG (harmonic discount, whole list) 0.760 < 0.9 (min_ndcg)" in message
    assert "recall@k 0.500 >= 0.5 (min_recall)" in message
    assert isinstance(info.value.result, RetrievalResult)
    assert info.value.result.details["failed_thresholds"] == ["min_ndcg"]


def test_assert_retrieval_mrr_and_hit_rate_thresholds():
    with pytest.raises(LLMEvalAssertionError, match=r"hit rate 0\.000 < 1"):
        assert_retrieval(["x", "y", "a"], ["a"], k=2, min_hit_rate=1.0)
    assert assert_retrieval(["x", "a"], ["a"], min_mrr=0.5).mrr == 0.5


def test_assert_retrieval_without_threshold_is_an_error():
    with pytest.raises(ValueError, match="at least one threshold"):
        assert_retrieval(RETURNED, RELEVANT)


# --- rubric component ------------------------------------------------------------------------


def test_component_is_not_applicable_without_both_inputs():
    assert retrieval_component(None, RELEVANT) is None
    assert retrieval_component(RETURNED, None) is None
    assert retrieval_component(RETURNED, []) is None
    assert retrieval_component([], RELEVANT).score == 0.0  # returned nothing: a real 0


def test_component_with_unusable_grades_is_a_grader_error():
    with pytest.raises(GraderError, match="relevant set is empty"):
        retrieval_component(["a"], {"a": 0})


def test_component_from_a_gold_record():
    import json

    line = json.dumps(
        {
            "id": "mva-001",
            "messages": [{"role": "user", "content": "Hva er merverdiavgiftssatsen?"}],
            "retrieved": RETURNED,
            "metadata": {"source_ids": RELEVANT},
        }
    )
    record = json.loads(line)
    relevant = record.get("relevant_ids") or record["metadata"].get("source_ids")
    result = retrieval_component(record["retrieved"], relevant)
    assert result is not None
    assert result.ndcg_harmonic == pytest.approx(19 / 22)


# --- independent reference: trec_eval via pytrec_eval ----------------------------------------


# trec_eval's C code via pytrec_eval (pip package pytrec-eval-terrier), a dev dependency.
needs_trec_eval = pytest.mark.skipif(
    importlib.util.find_spec("pytrec_eval") is None, reason="pytrec-eval-terrier not installed"
)


def _trec(ranking: list[str], grades: dict[str, int], measures: set[str]) -> dict[str, float]:
    import pytrec_eval

    run = {"q": {doc: float(len(ranking) - i) for i, doc in enumerate(ranking)}}
    evaluator = pytrec_eval.RelevanceEvaluator({"q": grades}, measures)
    return evaluator.evaluate(run)["q"]


@needs_trec_eval
def test_worked_example_matches_trec_eval():
    grades = dict.fromkeys([*RELEVANT, "mval-15-10"], 1)
    ref = _trec(
        RETURNED,
        grades,
        {"P.3", "recall.3", "ndcg_cut.3", "map_cut.3", "ndcg", "map", "recip_rank"},
    )
    cut = retrieval_metrics(RETURNED, grades, k=3)
    full = retrieval_metrics(RETURNED, grades)
    assert cut.precision_at_k == pytest.approx(ref["P_3"])
    assert cut.recall_at_k == pytest.approx(ref["recall_3"])
    assert cut.ndcg_at_k == pytest.approx(ref["ndcg_cut_3"])
    assert cut.average_precision == pytest.approx(ref["map_cut_3"])
    assert full.ndcg_at_k == pytest.approx(ref["ndcg"])
    assert full.average_precision == pytest.approx(ref["map"])
    assert full.mrr == pytest.approx(ref["recip_rank"])


DOCS = [f"d{i}" for i in range(12)]
rankings = st.lists(st.sampled_from(DOCS), min_size=1, max_size=10, unique=True)
gradings = st.dictionaries(st.sampled_from(DOCS), st.integers(0, 3), min_size=1, max_size=8).filter(
    lambda g: any(v > 0 for v in g.values())
)


@needs_trec_eval
@settings(max_examples=60, deadline=None)
@given(ranking=rankings, grades=gradings, k=st.integers(1, 12))
def test_parity_with_trec_eval_on_random_rankings(ranking, grades, k):
    n = len(ranking)
    ref = _trec(
        ranking,
        grades,
        {
            f"P.{k}",
            f"recall.{k}",
            f"ndcg_cut.{k}",
            f"map_cut.{k}",
            f"P.{n}",
            "ndcg",
            "map",
            "recip_rank",
        },
    )
    cut = retrieval_metrics(ranking, grades, k=k)
    full = retrieval_metrics(ranking, grades)
    assert cut.precision_at_k == pytest.approx(ref[f"P_{k}"])
    assert cut.recall_at_k == pytest.approx(ref[f"recall_{k}"])
    assert cut.ndcg_at_k == pytest.approx(ref[f"ndcg_cut_{k}"])
    assert cut.average_precision == pytest.approx(ref[f"map_cut_{k}"])
    assert full.precision_at_k == pytest.approx(ref[f"P_{n}"])
    assert full.ndcg_at_k == pytest.approx(ref["ndcg"])
    assert full.average_precision == pytest.approx(ref["map"])
    assert full.mrr == pytest.approx(ref["recip_rank"])


# --- scikit-learn's ndcg_score: what differs ----------------------------------------------------


def test_sklearn_ndcg_score_only_knows_the_documents_it_is_given():
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    ranking = ["a", "x", "y"]
    grades = {"a": 1, "b": 1, "c": 1}  # b and c were never returned
    y_score = [[3.0, 2.0, 1.0]]
    naive = sklearn_metrics.ndcg_score([[grades.get(d, 0) for d in ranking]], y_score)
    ours = retrieval_metrics(ranking, grades, k=3)
    # scikit-learn builds IDCG from the returned documents only: one relevant at rank 1 looks perfect.
    assert naive == pytest.approx(1.0)
    # trec_eval convention: IDCG = 1 + 1/log2(3) + 1/log2(4) over all three relevant documents.
    assert ours.ndcg_at_k == pytest.approx(1 / (1 + 1 / math.log2(3) + 1 / 2))
    # Reproducing ours with scikit-learn: append the missed relevant documents below every returned
    # one and cut at k (k <= number returned).
    padded_true = [[grades.get(d, 0) for d in ranking] + [1, 1]]
    padded_score = [[3.0, 2.0, 1.0, -1.0, -2.0]]
    padded = sklearn_metrics.ndcg_score(padded_true, padded_score, k=3)
    assert padded == pytest.approx(ours.ndcg_at_k)


# --- properties --------------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(
    ranking=st.lists(st.sampled_from(DOCS), max_size=12),
    grades=gradings,
    k=st.none() | st.integers(1, 12),
)
def test_all_measures_are_between_zero_and_one(ranking, grades, k):
    result = retrieval_metrics(ranking, grades, k=k)
    for name in METRIC_FIELDS:
        assert 0.0 <= getattr(result, name) <= 1.0 + 1e-12, name


@settings(max_examples=60, deadline=None)
@given(grades=gradings, tail=st.lists(st.sampled_from(DOCS), max_size=4))
def test_perfect_ranking_scores_one(grades, tail):
    relevant = [d for d, g in sorted(grades.items(), key=lambda kv: -kv[1]) if g > 0]
    ranking = relevant + [d for d in tail if d not in grades]
    result = retrieval_metrics(ranking, grades)
    assert result.ndcg_harmonic == pytest.approx(1.0)
    assert result.ndcg_at_k == pytest.approx(1.0)
    assert result.modified_precision == 1.0
    assert result.average_precision == pytest.approx(1.0)
    assert result.mrr == 1.0
    assert retrieval_metrics(ranking, grades, k=len(relevant)).precision_at_k == 1.0


@settings(max_examples=60, deadline=None)
@given(ranking=rankings, grades=gradings, data=st.data())
def test_permutations_keep_set_measures_and_reordering_irrelevant_docs_changes_nothing(
    ranking, grades, data
):
    relevant = {d for d, g in grades.items() if g > 0}
    shuffled = data.draw(st.permutations(ranking))
    a, b = retrieval_metrics(ranking, grades), retrieval_metrics(shuffled, grades)
    assert a.modified_precision == b.modified_precision
    assert a.recall_at_k == b.recall_at_k
    assert a.precision_at_k == b.precision_at_k
    # shuffle only the non-relevant documents among their own slots: no measure moves
    slots = [i for i, d in enumerate(ranking) if d not in relevant]
    moved = data.draw(st.permutations([ranking[i] for i in slots]))
    only_irrelevant = list(ranking)
    for i, doc in zip(slots, moved, strict=True):
        only_irrelevant[i] = doc
    c = retrieval_metrics(only_irrelevant, grades)
    for name in METRIC_FIELDS:
        assert getattr(c, name) == pytest.approx(getattr(a, name)), name


@settings(max_examples=60, deadline=None)
@given(ranking=rankings, grades=gradings, data=st.data())
def test_moving_a_relevant_document_above_an_irrelevant_one_never_lowers_rank_measures(
    ranking, grades, data
):
    relevant = {d for d, g in grades.items() if g > 0}
    pairs = [
        i
        for i in range(len(ranking) - 1)
        if ranking[i] not in relevant and ranking[i + 1] in relevant
    ]
    if not pairs:
        return
    i = data.draw(st.sampled_from(pairs))
    better = list(ranking)
    better[i], better[i + 1] = better[i + 1], better[i]
    before, after = retrieval_metrics(ranking, grades), retrieval_metrics(better, grades)
    assert after.ndcg_harmonic > before.ndcg_harmonic
    assert after.ndcg_at_k > before.ndcg_at_k
    assert after.average_precision > before.average_precision
    assert after.mrr >= before.mrr
    assert after.modified_precision == before.modified_precision


def test_gold_file_retrieval_component_is_reported_with_weight_zero(pytester: pytest.Pytester):
    import json

    from tests.conftest import write_suite

    base = {
        "question": "Hva er satsen?",
        "expected": "25 prosent",
        "response": "25 prosent",
        "eval_criteria": {"accuracy": "exact", "weights": {"length": 0}},
    }
    write_suite(
        pytester,
        [
            {**base, "id": "ids", "retrieved": RETURNED, "relevant_ids": RELEVANT},
            {**base, "id": "source-ids", "retrieved": ["x", "mval-3-1"], "metadata": {"source_ids": ["mval-3-1"]}},
            {**base, "id": "no-retrieval"},
        ],
        name="vat_eval.jsonl",
    )  # fmt: skip
    result = pytester.runpytest("-p", "no:randomly", "--llm-report=report.json")
    result.assert_outcomes(passed=3)  # weight 0: a weak retriever does not fail the answer
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    scores = {s["sample_id"]: s["scores"]["retrieval"] for s in report["sample_results"]}
    assert scores["ids"] == pytest.approx(19 / 22, abs=1e-4)
    assert scores["source-ids"] == pytest.approx(0.5)  # relevant at rank 2: (1/2) / 1
    assert scores["no-retrieval"] is None
