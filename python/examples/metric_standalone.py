# Scoring with metrics on their own, without a recipe (Unitxt's docs / examples/
# evaluate_metric_standalone.py): each entry has a prediction and its list of references, and
# eval_utils.evaluate gives every entry its scores per metric and the global scores per metric.
import json

from unitxt_rs.eval_utils import evaluate

references = [
    {"name": "Ada Lovelace", "born": "1815", "field": "mathematics"},
    {"name": "Alan Turing", "born": "1912"},
    {"name": "Grace Hopper", "born": "1906", "field": "computing"},
]
predictions = [
    {"name": "Ada Lovelace", "born": "1816", "country": "England"},
    {"name": "Alan Turing", "born": "1912", "field": "logic"},
    {"name": "Grace Hopper", "field": "computing"},
]

instance_results, global_scores = evaluate(
    [{"prediction": p, "references": [r]} for p, r in zip(predictions, references)],
    metric_names=[
        "metrics.key_value_extraction.accuracy",
        "metrics.key_value_extraction.token_overlap",
    ],
    compute_conf_intervals=False,
)

print("Instance results:")
print(json.dumps(instance_results, indent=2))
print("Global results:")
print(json.dumps(global_scores, indent=2))
