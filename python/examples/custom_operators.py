# A user's own operators, written as Python subclasses of Unitxt's FieldOperator and
# InstanceOperator, in a card's preprocess steps; the engine calls back into Python for them
# (Unitxt's docs/adding_operator, with a card over in-memory data).
from unitxt_rs import load_dataset
from unitxt_rs.api import LoadFromDictionary, TaskCard, evaluate
from unitxt_rs.operators import FieldOperator, InstanceOperator
from unitxt_rs.task import Task
from unitxt_rs.templates import InputOutputTemplate


class Normalize(FieldOperator):
    """Collapses runs of spaces and ends the text with `suffix`."""

    suffix: str = "?"

    def process_value(self, value):
        return " ".join(value.split()).rstrip("?") + self.suffix


class AddTopic(InstanceOperator):
    """Prefixes the question with the topic the split is about."""

    def process(self, instance, stream_name=None):
        instance["question"] = f"[{instance['topic']}] {instance['question']}"
        return instance


data = {
    "test": [
        {"question": "what is   the capital of Texas", "answer": "Austin", "topic": "geography"},
        {"question": "how many legs has a  spider?", "answer": "8", "topic": "biology"},
        {"question": "who wrote   Hamlet", "answer": "Shakespeare", "topic": "literature"},
    ]
}

card = TaskCard(
    loader=LoadFromDictionary(data=data),
    preprocess_steps=[Normalize(field="question"), AddTopic(), Normalize(field="answer", to_field="answer", suffix=".")],
    task=Task(input_fields={"question": "str"}, reference_fields={"answer": "str"}, prediction_type="str",
              metrics=["metrics.accuracy"]),
    templates=[InputOutputTemplate(input_format="Q: {question}", output_format="{answer}")],
)

dataset = load_dataset(card=card, split="test")
print(dataset[0]["source"])

predictions = ["Austin.", "6", "Shakespeare."]
results = evaluate(predictions=predictions, data=dataset)
print(results.global_scores.summary)
