"""Writes metrics_oracle.json: Unitxt 1.26.10's scores for the metrics added for catalog coverage
(robustness group metrics, ranking, key-value extraction, tool calling, ...) on constructed
predictions, references and task data.

Run with the oracle venv (Unitxt 1.26.10 and the packages scripts/test.sh installs):
    python crates/unitxt/src/metrics/testdata/metrics_oracle_gen.py

Each case: {"name", "metric" (catalog name or inline artifact JSON), "predictions", "references",
"task_data", "global", "instances"}; the scores come from applying the metric to one stream of
the instances (as Unitxt's evaluate does, with its default seed and confidence intervals). NaN is
written as "NaN". A case whose metric raises gets "error" (the exception's text) instead of scores.
"""
import json
import os
import random
import sys

from unitxt.artifact import fetch_artifact
from unitxt.stream import MultiStream

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "metrics_oracle.json")

# The JSON-safe copy of scores that the evaluation oracle writes (NaN as "NaN", numpy scalars as
# Python numbers), so that both oracles write scores alike.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "..", "scripts"))
from oracle_eval import clean  # noqa: E402


def run(name, metric, predictions, references, task_data):
    case = {"name": name, "metric": metric, "predictions": predictions, "references": references,
            "task_data": task_data}
    try:
        if isinstance(metric, str):
            m = fetch_artifact(metric)[0]
        else:
            from unitxt.artifact import Artifact
            m = Artifact.from_dict(json.loads(json.dumps(metric)))
        instances = [
            {"prediction": p, "references": r, "task_data": t}
            for p, r, t in zip(predictions, references, task_data)
        ]
        out = list(m(MultiStream.from_iterables({"test": instances}))["test"])
        case["global"] = clean(out[0]["score"]["global"])
        case["instances"] = [clean(o["score"]["instance"]) for o in out]
    except Exception as e:  # the error is the expected outcome
        lines = [ln for ln in str(e).splitlines() if ln.strip()]
        case["error"] = f"{type(e).__name__}: {lines[-1] if lines else ''}"
    return case


def group_data(seed, n, n_groups, p_correct, variants=True):
    rng = random.Random(seed)
    preds, refs, tds = [], [], []
    for i in range(n):
        g = rng.randrange(n_groups) * 7  # ints: groups are sorted by str()
        answer = rng.choice(["yes", "no", "maybe"])
        ok = rng.random() < p_correct
        pred = answer if ok else rng.choice(["yes", "no", "maybe", "nope yes"])
        td = {"group_id": g}
        if variants:
            td["variant_type"] = rng.choice(["original", "paraphrase", "paraphrase", "other"])
        preds.append(pred)
        refs.append([answer])
        tds.append(td)
    return preds, refs, tds


def ndcg_cases():
    rng = random.Random(11)
    preds, refs, tds = [], [], []
    for i in range(40):
        q = rng.choice(["q1", "q2", "q3", "q4", "q5", "q6", 7])
        rel = rng.choice([0.0, 0.0, 1.0, 2.0, 3.0, 0.5])
        pred = rng.choice([0.1, 0.2, 0.5, 0.9, 0.5, 3.0, -1.0, None])
        preds.append(pred)
        refs.append([rel])
        tds.append({"query": q})
    out = [run("ndcg/plain", {"__type__": "ndcg"}, preds, refs, tds)]
    # Through the catalog's pipeline: strings cast to floats, failed casts as None.
    sp = [str(p) if i % 5 and p is not None else "not a number" for i, p in enumerate(preds)]
    sr = [[str(r[0])] for r in refs]
    out.append(run("ndcg/pipeline", "metrics.ndcg", sp, sr, tds))
    out.append(run("ndcg/one_query_none", {"__type__": "ndcg"}, [1.0, None, None], [[1.0], [0.0], [2.0]],
                   [{}, {}, {}]))
    out.append(run("ndcg/all_irrelevant", {"__type__": "ndcg"}, [0.3, 0.2, 0.7, 0.1], [[0.0], [0.0], [1.0], [0.0]],
                   [{"query": "a"}, {"query": "a"}, {"query": "b"}, {"query": "b"}]))
    out.append(run("ndcg/singletons", {"__type__": "ndcg"}, [0.3, 0.2], [[1.0], [0.0]],
                   [{"query": "a"}, {"query": "b"}]))
    out.append(run("ndcg/int_reference", {"__type__": "ndcg"}, [0.3, 0.2], [[1], [0.0]],
                   [{"query": "a"}, {"query": "a"}]))
    out.append(run("ndcg/ties", {"__type__": "ndcg"}, [0.5, 0.5, 0.5, 0.1, 0.5, 0.5], [[1.0], [0.0], [2.0], [3.0], [1.0], [0.0]],
                   [{"query": "a"}] * 4 + [{"query": "b"}] * 2))
    out.append(run("ndcg/negative", {"__type__": "ndcg"}, [0.3, 0.2], [[-1.0], [0.0]],
                   [{"query": "a"}, {"query": "a"}]))
    return out


def key_value_cases():
    rng = random.Random(12)
    keys = ["name", "city", "age", "zip"]
    vals = ["John Smith", "New York", "42", "10001", "Jane", "Paris France", "7"]
    preds, refs, tds = [], [], []
    for i in range(30):
        ref = {k: rng.choice(vals) for k in keys if rng.random() < 0.7}
        pred = {}
        for k in keys + ["extra"]:
            if rng.random() < 0.6:
                pred[k] = ref[k] if (k in ref and rng.random() < 0.6) else rng.choice(vals)
        preds.append(pred)
        refs.append([ref])
        tds.append({})
    out = [
        run("kv/accuracy", "metrics.key_value_extraction.accuracy", preds, refs, tds),
        run("kv/token_overlap", "metrics.key_value_extraction.token_overlap", preds, refs, tds),
        run("kv/no_ref_keys", "metrics.key_value_extraction.accuracy", [{"a": "1"}], [[{}]], [{}]),
    ]
    calls_p, calls_r = [], []
    for i in range(25):
        args = {"city": rng.choice(["Paris", "Rome"]), "days": rng.choice([1, 2, 3]),
                "opts": {"unit": rng.choice(["C", "F"]), "verbose": rng.choice([True, False])}}
        if rng.random() < 0.5:
            args["stops"] = [{"home": {"street": "Main"}}, {"work": {"street": rng.choice(["Log", "Main"])}}]
        if rng.random() < 0.3:
            args["items"] = [{"id": 1, "q": 2}, {"id": rng.choice([1, 3])}]
        ref = {"name": rng.choice(["get_weather", "book"]), "arguments": args}
        pargs = {k: (v if rng.random() < 0.7 else rng.choice(["Paris", 2, {"unit": "C"}])) for k, v in args.items()}
        if rng.random() < 0.2:
            pargs["bogus"] = "x"
        pred = {"name": ref["name"] if rng.random() < 0.8 else "other", "arguments": pargs}
        calls_p.append(pred)
        calls_r.append([ref])
    tds = [{} for _ in calls_p]
    out.append(run("tool_kv/accuracy", "metrics.tool_calling.key_value.accuracy", calls_p, calls_r, tds))
    out.append(run("tool_kv/token_overlap", "metrics.tool_calling.key_value.token_overlap", calls_p, calls_r, tds))
    return out


def multi_turn_cases():
    rng = random.Random(13)
    preds, refs, tds = [], [], []
    for i in range(40):
        conv = rng.choice(["c1", "c2", "c3", "c4", "c5"])
        turns = rng.choice([1, 3, 5, 7, 21, 23])
        answer = rng.choice(["a", "b"])
        preds.append(answer if rng.random() < 0.6 else "c")
        refs.append([answer])
        tds.append({"conversation": {"id": conv, "dialog": [{"role": "user", "content": "x"}] * turns}})
    return [
        run("multi_turn/accuracy", "metrics.multi_turn.accuracy", preds, refs, tds),
        run("multi_turn/sequential", "metrics.multi_turn.sequential_success_accuracy", preds, refs, tds),
        run("multi_turn/threshold", {"__type__": "multi_turn_metric", "metric": {"__type__": "accuracy_fast"},
                                     "in_group_reduction": {"__type__": "sequential_success", "threshold": -0.5}},
            preds, refs, tds),
    ]


def websrc_cases():
    rng = random.Random(14)
    answers = ["The Lord of the Rings", "$12.99", "Tom Hanks, Meg Ryan", "2010-05-01", "N/A", "  Élan vital! "]
    preds, refs, tds = [], [], []
    for i in range(30):
        a = rng.choice(answers)
        p = rng.choice([a, a.lower(), a.split(" ")[0], "", "something else entirely", a + " (2001)"])
        preds.append(p)
        refs.append([a])
        tds.append({"domain": rng.choice(["auto", "book", "movie", "hotel"])})
    return [
        run("websrc/catalog", "metrics.websrc_squad_f1", preds, refs, tds),
        run("websrc/ci", {"__type__": "websrc_squad_f1"}, preds, refs, tds),
    ]


def ner_cases():
    rng = random.Random(15)
    ents = [("John Smith", "PER"), ("Jon Smith", "PER"), ("Acme Corp", "ORG"), ("Acme Corporation", "ORG"),
            ("Paris", "LOC"), ("Pariss", "LOC"), ("New York City", "LOC"), ("new york city", "LOC"),
            ("IBM", "ORG"), ("I.B.M.", "ORG"), ("Smith", "PER"), ("John Smith", "ORG")]
    preds, refs = [], []
    for i in range(30):
        ref = [rng.choice(ents) for _ in range(rng.randrange(0, 4))]
        pred = [rng.choice(ents) if rng.random() < 0.5 else r for r in ref]
        if rng.random() < 0.3:
            pred.append(rng.choice(ents + [("Zorg", "MISC")]))
        preds.append([tuple(x) for x in pred])
        refs.append([[tuple(x) for x in ref]])
    tds = [{} for _ in preds]
    return [
        run("fuzzy_ner/catalog", "metrics.fuzzyner", preds, refs, tds),
        run("metric_based_ner/catalog", "metrics.metric_based_ner", preds, refs, tds),
        run("metric_based_ner/token_overlap", {"__type__": "metric_based_ner", "metric": "metrics.token_overlap",
                                               "min_score_for_match": 0.5, "n_resamples": 20}, preds, refs, tds),
    ]


def win_rate_cases():
    rng = random.Random(16)
    models = ["gpt", "llama", "mixtral", "granite", "bert"]
    preds, refs, tds = [], [], []
    for i in range(40):
        a, b = rng.sample(models, 2)
        g = rng.choice([-3, -2, -1, 0, 1, 2, 3])
        p = g if rng.random() < 0.5 else rng.choice([-3, -1.5, 0, 1, 2.5, 3])
        preds.append(p)
        refs.append([rng.choice([g, float(g) + 0.7])])
        tds.append({"model_a": a, "model_b": b})
    return [run("win_rate/catalog", "metrics.weighted_win_rate_correlation", preds, refs, tds),
            run("win_rate/one", "metrics.weighted_win_rate_correlation", [1], [[2]], [{"model_a": "x", "model_b": "y"}])]


TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "weather", "parameters": {
        "type": "object",
        "properties": {
            "city": {"type": "string", "minLength": 2, "pattern": "^[A-Z]"},
            "days": {"type": "integer", "minimum": 1, "maximum": 7},
            "unit": {"type": "string", "enum": ["C", "F"]},
            "hourly": {"type": ["boolean", "null"]},
            "stops": {"type": "array", "items": {"type": "string"}, "maxItems": 2, "uniqueItems": True},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5},
        },
        "required": ["city"],
        "additionalProperties": False,
    }}},
    {"type": "function", "function": {"name": "book", "description": "book", "parameters": {
        "type": "object",
        "properties": {
            "guest": {"$ref": "#/$defs/person"},
            "nights": {"anyOf": [{"type": "integer"}, {"type": "string", "pattern": "^[0-9]+$"}]},
            "tags": {"type": "object", "patternProperties": {"^x-": {"type": "string"}},
                     "additionalProperties": {"type": "integer"}, "maxProperties": 2},
        },
        "required": ["guest", "nights"],
        "$defs": {"person": {"type": "object", "properties": {"name": {"type": "string"}},
                             "required": ["name"], "not": {"required": ["banned"]}}},
    }}},
    {"type": "function", "function": {"name": "noop", "description": "no args", "parameters": {
        "type": "object", "properties": {}}}},
]


def tool_calling_cases():
    rng = random.Random(17)
    weather_args = [
        {"city": "Paris"}, {"city": "Paris", "days": 3}, {"city": "paris"}, {"city": "P"}, {"city": "Rome", "days": 9},
        {"city": "Rome", "days": 2.0}, {"city": "Rome", "unit": "K"}, {"city": "Rome", "unit": "C", "hourly": None},
        {"city": "Oslo", "stops": ["a", "b"]}, {"city": "Oslo", "stops": ["a", "a"]}, {"city": "Oslo", "extra": 1},
        {"city": "Oslo", "ratio": 1.5}, {"city": "Oslo", "ratio": 0.3}, {"city": "Oslo", "ratio": 0}, {"days": 2},
        {"city": "Oslo", "hourly": True, "stops": ["x", "y", "z"]},
    ]
    book_args = [
        {"guest": {"name": "Ann"}, "nights": 2}, {"guest": {"name": "Ann"}, "nights": "2"},
        {"guest": {"name": "Ann"}, "nights": "two"}, {"guest": {}, "nights": 1},
        {"guest": {"name": "Bo", "banned": True}, "nights": 1}, {"guest": {"name": "Bo"}, "nights": 1, "tags": {"x-a": "v"}},
        {"guest": {"name": "Bo"}, "nights": 1, "tags": {"b": "v"}}, {"guest": {"name": "Bo"}, "nights": 1, "tags": {"b": 3}},
        {"guest": {"name": "Bo"}, "nights": 1, "tags": {"b": 3, "c": 4, "x-d": "e"}},
    ]
    preds, refs, tds = [], [], []
    for i in range(40):
        kind = rng.choice(["get_weather", "book", "noop", "missing"])
        if kind == "get_weather":
            args = rng.choice(weather_args)
        elif kind == "book":
            args = rng.choice(book_args)
        else:
            args = rng.choice([{}, {"a": 1}])
        pred = {"name": kind, "arguments": args}
        ref_args = dict(args) if rng.random() < 0.5 else rng.choice(weather_args + book_args + [{}])
        ref = [{"name": kind if rng.random() < 0.7 else "get_weather", "arguments": ref_args}]
        if rng.random() < 0.3:
            ref.append({"name": "book", "arguments": rng.choice(book_args)})
        preds.append(pred)
        refs.append(ref)
        tds.append({"__tools__": TOOLS})
    out = [run("tool_calling/catalog", "metrics.tool_calling", preds, refs, tds)]
    multi = [[p, preds[(i + 1) % len(preds)]][: 1 + i % 2] for i, p in enumerate(preds)]
    out.append(run("tool_calling/multi_turn", "metrics.tool_calling.multi_turn.validity", multi, [[r] for r in refs], tds))
    out.append(run("tool_calling/multi_turn_bad_ref", "metrics.tool_calling.multi_turn.validity", multi, refs, tds))
    out.append(run("tool_calling/multi_turn_empty", "metrics.tool_calling.multi_turn.validity", [[]], [[]],
                   [{"__tools__": TOOLS}]))
    return out


def rerank_cases():
    rng = random.Random(18)
    preds, refs, tds = [], [], []
    for q in range(12):
        n = rng.randrange(1, 9)
        gold = rng.randrange(n + 1)  # sometimes no relevant passage
        for p in range(n):
            score = rng.choice(["0.9", "0.5", "0.5", "0.1", "0.75", "0.3", 0.2])
            preds.append(score)
            refs.append(["1" if p == gold else rng.choice(["0", "0", "2", "-1"]) if rng.random() < 0.2 else "0"])
            tds.append({"query_id": f"q{q}", "passage_id": str(rng.choice([p, 10 + p, 100 + p]))})
    # pytrec_eval's sdist downloads trec_eval from GitHub when it builds; pytrec-eval-terrier is
    # the same module as a wheel, under another distribution name, so Unitxt's requirement check
    # (by distribution name) is skipped here.
    from unitxt import metrics as unitxt_metrics

    check = unitxt_metrics.RerankRecall.check_missing_requirements
    unitxt_metrics.RerankRecall.check_missing_requirements = lambda self, requirements=None: None
    try:
        return [
            run("rerank/catalog", "metrics.rerank_recall", preds, refs, tds),
            run("rerank/at_k", {"__type__": "rerank_recall", "at_k": [1, 3, 10], "n_resamples": 30}, preds, refs,
                tds),
        ]
    finally:
        unitxt_metrics.RerankRecall.check_missing_requirements = check


def sql_non_execution_cases():
    """Pairs of the metric's own oracle (sql_non_execution.json) without the constructs
    unitxt-sql does not reproduce yet (subqueries, CTEs, CASE, arithmetic)."""
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "sql_non_execution.json")) as f:
        pairs = [(i["prediction"], i["gold"]) for i in json.load(f)["instances"]]
    skip = ("(select", "exists", "with ", "case", "iif", "cast", " / ", " * ", " - ", " + ", "update", "drop")
    pairs = [(p, g) for p, g in pairs if not any(k in (p + " " + g).lower() for k in skip)]
    rng = random.Random(15)
    picked = rng.sample(pairs, 60)
    preds = [p for p, _ in picked]
    refs = [[g] for _, g in picked]
    tds = [{} for _ in picked]
    return [
        run("sql_non_execution/catalog", "metrics.text2sql.non_execution_accuracy", preds, refs, tds),
        run("sql_non_execution/few", {"__type__": "sql_non_execution_accuracy", "n_resamples": 50}, preds[:7], refs[:7], tds[:7]),
    ]


def main():
    cases = []
    group_types = [
        "fixed_group_mean_accuracy", "fixed_group_mean_string_containment",
        "fixed_group_mean_baseline_accuracy", "fixed_group_mean_paraphrase_accuracy",
        "fixed_group_mean_baseline_string_containment", "fixed_group_mean_paraphrase_string_containment",
        "fixed_group_pdr_paraphrase_accuracy", "fixed_group_pdr_paraphrase_string_containment",
        "fixed_group_norm_cohens_h_paraphrase_accuracy", "fixed_group_norm_cohens_h_paraphrase_string_containment",
        "fixed_group_norm_hedges_g_paraphrase_accuracy", "fixed_group_norm_hedges_g_paraphrase_string_containment",
        "fixed_group_absval_norm_cohens_h_paraphrase_accuracy",
        "fixed_group_absval_norm_cohens_h_paraphrase_string_containment",
        "fixed_group_absval_norm_hedges_g_paraphrase_accuracy",
        "fixed_group_absval_norm_hedges_g_paraphrase_string_containment",
        "group_mean_accuracy", "group_mean_string_containment", "group_mean_token_overlap",
    ]
    datasets = [
        ("many", group_data(1, 60, 9, 0.6)),
        ("few", group_data(2, 12, 4, 0.5)),
        ("sparse", group_data(3, 9, 6, 0.7)),
    ]
    for t in group_types:
        for dname, (p, r, td) in datasets:
            cases.append(run(f"{t}/{dname}", f"metrics.robustness.{t}", p, r, td))
    # Edge cases: one group (no interval), all-equal scores, a prefix, fewer resamples, no group_id.
    p, r, td = group_data(4, 8, 1, 0.5)
    cases.append(run("one_group", "metrics.robustness.fixed_group_pdr_paraphrase_accuracy", p, r, td))
    cases.append(run("one_group_mean", "metrics.robustness.group_mean_accuracy", p, r, td))
    p, r, td = group_data(5, 10, 3, 1.0)
    cases.append(run("all_correct", "metrics.robustness.fixed_group_mean_accuracy", p, r, td))
    cases.append(run("all_correct_pdr", "metrics.robustness.fixed_group_pdr_paraphrase_accuracy", p, r, td))
    p, r, td = group_data(6, 20, 5, 0.5)
    cases.append(run("prefixed", {"__type__": "fixed_group_mean_accuracy", "score_prefix": "my_"}, p, r, td))
    cases.append(run("prefixed_token_overlap", {"__type__": "group_mean_token_overlap", "score_prefix": "to_",
                                                 "n_resamples": 50}, p, r, td))
    cases.append(run("percentile", {"__type__": "fixed_group_norm_hedges_g_paraphrase_accuracy",
                                    "ci_method": "percentile", "n_resamples": 200}, p, r, td))
    cases.append(run("no_ci", {"__type__": "group_mean_string_containment", "n_resamples": None}, p, r, td))
    cases.append(run("no_group_id", "metrics.robustness.fixed_group_mean_accuracy", ["a", "b"], [["a"], ["b"]],
                     [{"x": 1}, {"x": 2}]))

    cases.extend(ndcg_cases())
    cases.extend(key_value_cases())
    cases.extend(multi_turn_cases())
    cases.extend(websrc_cases())
    cases.extend(ner_cases())
    cases.extend(win_rate_cases())
    cases.extend(tool_calling_cases())
    cases.extend(rerank_cases())
    cases.extend(sql_non_execution_cases())

    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(cases, f, ensure_ascii=False, indent=None)
        f.write("\n")
    print(f"{len(cases)} cases -> {OUT}")


if __name__ == "__main__":
    main()
