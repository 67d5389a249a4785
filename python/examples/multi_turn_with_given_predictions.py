# Verbalizes multi-turn conversations as chat messages with a multi-turn template and scores
# given answers (Unitxt's examples/evaluate_multi_turn.py, with given answers and the
# metrics that need no model).
from typing import List

from unitxt_rs.api import create_dataset, evaluate
from unitxt_rs.task import Task
from unitxt_rs.templates import MultiTurnTemplate
from unitxt_rs.types import Conversation

calc = {"role": "system", "content": "Calculate and return only the number."}
data = [
    {
        "conversation": {"id": "1", "dialog": [
            {"role": "system", "content": "Have a dialog with the user and answer the questions."},
            {"role": "user", "content": "Where is Paris?"},
        ]},
        "answers": ["Paris is in France"],
    },
    {
        "conversation": {"id": "1", "dialog": [
            {"role": "system", "content": "Have a dialog with the user and answer the questions."},
            {"role": "user", "content": "Where is Paris?"},
            {"role": "assistant", "content": "Paris is in France"},
            {"role": "user", "content": "How is it also called?"},
        ]},
        "answers": ["The City of Lights"],
    },
    {
        "conversation": {"id": "2", "dialog": [calc, {"role": "user", "content": "12+13"}]},
        "answers": ["25"],
    },
    {
        "conversation": {"id": "2", "dialog": [
            calc,
            {"role": "user", "content": "12+13"},
            {"role": "assistant", "content": "25"},
            {"role": "system", "content": "Multiply the result by 3.14159"},
        ]},
        "answers": ["78.53975"],
    },
]

template = MultiTurnTemplate(references_field="answers", turns_field="conversation/dialog")

task = Task(
    input_fields={"conversation": Conversation},
    reference_fields={"answers": List[str]},
    prediction_type=str,
    metrics=["metrics.rouge", "metrics.normalized_sacrebleu", "metrics.accuracy"],
    default_template=template,
)

dataset = create_dataset(task=task, test_set=data, format="formats.chat_api", split="test", max_test_instances=10)

predictions = ["Paris is in France.", "The city of light", "25", "78.54"]
results = evaluate(predictions=predictions, data=dataset)

print("Instance Results:")
print(results.instance_scores.summary)

print("Global Results:")
print(results.global_scores.summary)
