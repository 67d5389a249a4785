# Extracts key-value pairs with the catalog's JSON key-value template and scores given answers
# (Unitxt's examples/key_value_extraction_evaluation.py, with the texts given as text rather than
# rendered into images, and given answers instead of a vision model). The template's
# postprocessor (`json_str_to_dict`) reads each answer as a JSON object of strings; answers that
# are not JSON count as empty.
from unitxt_rs.api import create_dataset, evaluate

keys = ["Worker", "LivesIn", "WorksAt"]

test_set = [
    {
        "input": "John lives in New York.",
        "keys": keys,
        "key_value_pairs_answer": {"Worker": "John", "LivesIn": "New York"},
    },
    {
        "input": "Phil works at Apple and eats an apple.",
        "keys": keys,
        "key_value_pairs_answer": {"Worker": "Phil", "WorksAt": "Apple"},
    },
    {
        "input": "Dana, who lives in Haifa, works at IBM.",
        "keys": keys,
        "key_value_pairs_answer": {"Worker": "Dana", "LivesIn": "Haifa", "WorksAt": "IBM"},
    },
]

dataset = create_dataset(
    task="tasks.key_value_extraction",
    template="templates.key_value_extraction.extract_in_json_format",
    test_set=test_set,
    split="test",
    format="formats.chat_api",
    metrics=[
        "metrics.key_value_extraction.accuracy",
        "metrics.key_value_extraction.token_overlap",
    ],
)

predictions = [
    '{"Worker": "John", "LivesIn": "New York", "WorksAt": null}',
    '{"Worker": "Phil", "WorksAt": "apple", "Age": 42}',
    "Worker: Dana, LivesIn: Haifa",
]
results = evaluate(predictions=predictions, data=dataset)

print("Instance Results:")
print(results.instance_scores.summary)

print("Global Results:")
print(results.global_scores.summary)
