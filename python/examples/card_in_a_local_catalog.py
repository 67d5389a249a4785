# Builds a card in Python (loader, preprocessing steps, task, templates), saves it and a
# template to a local catalog, and loads it by name with demonstrations, grouping the scores
# by a field (Unitxt's "adding a dataset" tutorial, with unitxt_rs).
import tempfile

from unitxt_rs import add_to_catalog, register_local_catalog
from unitxt_rs.api import evaluate, load_dataset
from unitxt_rs.card import TaskCard
from unitxt_rs.loaders import LoadFromDictionary
from unitxt_rs.operators import Rename, Set
from unitxt_rs.task import Task
from unitxt_rs.templates import InputOutputTemplate, TemplatesList

capitals = [
    ("France", "Paris"), ("Japan", "Tokyo"), ("Kenya", "Nairobi"), ("Peru", "Lima"),
    ("Italy", "Rome"), ("Egypt", "Cairo"), ("Chile", "Santiago"), ("Spain", "Madrid"),
]
data = {
    "train": [{"land": c, "city": k} for c, k in capitals[:5]],
    "test": [{"land": c, "city": k} for c, k in capitals[5:]],
}

card = TaskCard(
    loader=LoadFromDictionary(data=data),
    preprocess_steps=[
        Rename(field_to_field={"land": "country"}),
        Set(fields={"kind": "capital"}),
    ],
    task=Task(
        input_fields={"country": str, "kind": str},
        reference_fields={"city": str},
        prediction_type=str,
        metrics=["metrics.accuracy", "metrics.string_containment"],
    ),
    templates=TemplatesList(
        items=[
            InputOutputTemplate(input_format="The {kind} of {country} is", output_format="{city}"),
            InputOutputTemplate(
                instruction="Name the {kind} city.",
                input_format="Country: {country}",
                output_format="{city}",
                target_prefix="City: ",
                postprocessors=["processors.take_first_word"],
            ),
        ]
    ),
)

catalog = tempfile.mkdtemp()
add_to_catalog(card, "cards.my_capitals", catalog_path=catalog, overwrite=True)
add_to_catalog(
    InputOutputTemplate(input_format="Q: capital of {country}?", output_format="{city}"),
    "templates.my_capital_question",
    catalog_path=catalog,
    overwrite=True,
)
register_local_catalog(catalog)

dataset = load_dataset(
    "card=cards.my_capitals,template_card_index=1,num_demos=2,demos_pool_size=3,group_by=[kind]",
    split="test",
)
print(dataset[0]["source"])

predictions = ["Cairo", "Santiago de Chile", "Barcelona"]
results = evaluate(predictions=predictions, data=dataset)
print(results.global_scores.summary)
print(results.groups_scores.summary)

# The saved template, used by name.
dataset = load_dataset("card=cards.my_capitals,template=templates.my_capital_question", split="test")
print(dataset[0]["source"])
results = evaluate(predictions=predictions, data=dataset)
print(results.global_scores.summary)
