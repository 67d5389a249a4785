# Scores open QA answers against references with the catalog's recommended metrics that need
# no GPU (Unitxt's examples/evaluate_qa_dataset_with_given_predictions.py, with unitxt_rs).
from unitxt_rs import get_logger
from unitxt_rs.api import create_dataset, evaluate

logger = get_logger()

records = [
    {"question": "What is the capital of Texas?", "answers": ["Austin"]},
    {"question": "What is the color of the sky?", "answers": ["Blue"]},
]

predictions = ["San Antonio", "blue"]

dataset = create_dataset(
    task="tasks.qa.open",
    test_set=records,
    metrics=["metrics.qa.open.recommended_no_gpu"],
)

results = evaluate(predictions, dataset["test"])

print("Global Results:")
print(results.global_scores.summary)

print("Instance Results:")
print(results.instance_scores.summary)
