# Defines a task and a template in Python, verbalizes records as chat messages and scores
# given answers (Unitxt's examples/standalone_qa_evaluation.py, with the model's answers
# given instead of inferred).
from unitxt_rs import get_logger
from unitxt_rs.api import create_dataset, evaluate
from unitxt_rs.blocks import Task
from unitxt_rs.templates import InputOutputTemplate

logger = get_logger()

data = [
    {"question": "What is the capital of Texas?", "answer": "Austin"},
    {"question": "What is the color of the sky?", "answer": "Blue"},
]

task = Task(
    input_fields={"question": str},
    reference_fields={"answer": str},
    prediction_type=str,
    metrics=["metrics.rouge"],
)

template = InputOutputTemplate(
    instruction="Answer the following question in one word.",
    input_format="{question}",
    output_format="{answer}",
    postprocessors=["processors.lower_case"],
)

dataset = create_dataset(task=task, test_set=data, template=template, format="formats.chat_api", split="test")

print("First prompt:", dataset[0]["source"])

predictions = ["Austin, of course", "blue"]
results = evaluate(predictions=predictions, data=dataset)

print("Instance Results:")
print(results.instance_scores.summary)

print("Global Results:")
print(results.global_scores.summary)
