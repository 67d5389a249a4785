# A benchmark of two recipes over in-memory cards, prepared as one dataset and scored per
# subset (Unitxt's examples/evaluate_benchmark.py, with given predictions instead of a model).
from unitxt_rs import load_dataset
from unitxt_rs.api import evaluate
from unitxt_rs.benchmark import Benchmark
from unitxt_rs.card import TaskCard
from unitxt_rs.loaders import LoadFromDictionary
from unitxt_rs.standard import DatasetRecipe

sentiment = TaskCard(
    loader=LoadFromDictionary(
        data={
            "test": [
                {"text": t, "label": l, "classes": ["positive", "negative"], "text_type": "review", "type_of_class": "sentiment"}
                for t, l in [("Loved it", "positive"), ("Awful", "negative"), ("Great fun", "positive"), ("Dull", "negative")]
            ]
        }
    ),
    task="tasks.classification.multi_class",
)
qa = TaskCard(
    loader=LoadFromDictionary(
        data={"test": [{"question": q, "answers": [a]} for q, a in [("2+2?", "4"), ("Sky color?", "blue"), ("Capital of Peru?", "Lima")]]}
    ),
    task="tasks.qa.open",
)

benchmark = Benchmark(
    format="formats.chat_api",
    max_samples_per_subset=3,
    subsets={
        "sentiment": DatasetRecipe(card=sentiment, template="templates.classification.multi_class.instruction"),
        "qa": DatasetRecipe(card=qa, template="templates.qa.open.simple"),
    },
)

dataset = load_dataset(benchmark, split="test")

predictions = ["positive", "positive", "positive", "4", "Blue", "Lima city"]
results = evaluate(predictions=predictions, data=dataset)

print("Global Results:")
print(results.global_scores.summary)

print("Subsets Results:")
print(results.subsets_scores.summary)
