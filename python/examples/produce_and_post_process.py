# Verbalizes raw task instances with a catalog recipe (for a model to answer) and
# post-processes the answers as the recipe's metrics would see them (Unitxt's produce and
# post_process, with unitxt_rs).
from unitxt_rs import post_process, produce

recipe = "card=cards.sst2,template=templates.classification.multi_class.instruction,format=formats.chat_api"

sentiment = {"text_type": "sentence", "classes": ["negative", "positive"], "type_of_class": "sentiment"}
instances = [{"text": "A joy from start to end.", **sentiment}, {"text": "Two hours I will not get back.", **sentiment}]
dataset = produce(instances, recipe)
for row in dataset:
    print(row["source"])

one = produce({"text": "Fine, I guess.", **sentiment}, recipe)
print(one["source"])

print(post_process(["\n Positive. Very much so", "negative"], dataset))
