# A custom field type (Unitxt's docs, "Adding a custom type" / examples/custom_type.py): a
# TypedDict for one turn and a NewType for a list of them, registered with register_type,
# used as a task's input type and rendered by a user's SingleTypeSerializer for that type;
# the instance is shown with print_dict.
from typing import Any, Dict, List, Literal, NewType, TypedDict

from unitxt_rs import load_dataset
from unitxt_rs.card import TaskCard
from unitxt_rs.loaders import LoadFromDictionary
from unitxt_rs.serializers import SingleTypeSerializer
from unitxt_rs.task import Task
from unitxt_rs.templates import InputOutputTemplate
from unitxt_rs.text_utils import print_dict
from unitxt_rs.type_utils import register_type


class Exchange(TypedDict):
    speaker: Literal["customer", "agent"]
    text: str


Transcript = NewType("Transcript", List[Exchange])

register_type(Exchange)
register_type(Transcript)


class TranscriptSerializer(SingleTypeSerializer):
    serialized_type = Transcript

    def serialize(self, value: Transcript, instance: Dict[str, Any]) -> str:
        lines = [f"> {turn['speaker'].upper()}: {turn['text']}" for turn in value]
        return "\n".join(["<transcript>", *lines, "</transcript>"])


task = Task(
    input_fields={"transcript": Transcript},
    reference_fields={"summary": str},
    prediction_type=str,
    metrics=["metrics.rouge"],
)

data = {
    "test": [
        {
            "transcript": [
                {"speaker": "customer", "text": "My parcel has not arrived."},
                {"speaker": "agent", "text": "It will be delivered tomorrow morning."},
            ],
            "summary": "A late parcel is promised for tomorrow.",
        },
        {
            "transcript": [
                {"speaker": "customer", "text": "Can I change my address?"},
                {"speaker": "agent", "text": "Yes, in your account settings."},
            ],
            "summary": "The address can be changed in the account settings.",
        },
    ]
}

card = TaskCard(loader=LoadFromDictionary(data=data), task=task)

dataset = load_dataset(
    card=card,
    template=InputOutputTemplate(
        instruction="Summarize the support conversation.",
        input_format="{transcript}",
        output_format="{summary}",
    ),
    serializer=TranscriptSerializer(),
)

print_dict(dataset["test"][0], keys_to_print=["source", "target"])
