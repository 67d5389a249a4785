# A card written in Python with its loader, task and templates, prepared as chat messages and
# scored with given answers (Unitxt's examples/create_dataset_task_card_yaml.py, with the
# answers given instead of inferred).
from unitxt_rs import get_logger, load_dataset
from unitxt_rs.api import LoadFromDictionary, TaskCard, evaluate
from unitxt_rs.task import Task
from unitxt_rs.templates import InputOutputTemplate

logger = get_logger()

data = [
    {"input": "What is the capital of Texas?", "output": "The capital of Texas is Austin"},
    {"input": "Count until three.", "output": "1, 2, 3."},
    {"input": "Tell me a joke about chicken crossing the road.", "output": "Why did the checken cross the road? To get to the other side."},
]

card = TaskCard(
    loader=LoadFromDictionary(data={"test": data}),
    task=Task(
        input_fields={"input": "str"},
        reference_fields={"output": "str"},
        prediction_type="str",
        metrics=["metrics.rouge"],
    ),
    templates=[InputOutputTemplate(input_format="{input}", output_format="{output}")],
)

dataset = load_dataset(card=card, split="test", format="formats.chat_api")

predictions = ["Austin is the capital of Texas", "1 2 3", "To get to the other side."]
results = evaluate(predictions=predictions, data=dataset)

print("Global Results:")
print(results.global_scores.summary)

print("Instance Results:")
print(results.instance_scores.summary)
