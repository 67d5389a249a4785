import json, copy, sys
from unitxt.artifact import fetch_artifact
from unitxt import artifact as A

def build(spec):
    if isinstance(spec, str):
        t, _ = fetch_artifact(spec)
    else:
        t = A.Artifact.from_dict(copy.deepcopy(spec))
    return t

mc_in = {"topic": "anatomy", "question": "What is the largest bone?", "choices": ["Femur", "Skull", "Rib", "Ulna bone"]}
mc_ref = {"answer": 0, "choices": ["Femur", "Skull", "Rib", "Ulna bone"]}
mc = {"input_fields": mc_in, "reference_fields": mc_ref, "data_classification_policy": ["public"]}
mc_text = {"input_fields": mc_in, "reference_fields": {"answer": "Rib", "choices": mc_in["choices"]}}
cls = {"input_fields": {"text": "a gripping, funny film", "text_type": "sentence", "classes": ["negative", "positive"], "type_of_class": "sentiment"}, "reference_fields": {"label": "positive"}}
sts = {"input_fields": {"text1": "A man plays.", "text2": "A man is playing.", "attribute_name": "similarity", "min_value": 1.0, "max_value": 5.0}, "reference_fields": {"attribute_value": 3.87}}
squad = {"input_fields": {"context": "Paris is the capital of France.", "context_type": "paragraph", "question": "What is the capital?"}, "reference_fields": {"answers": ["Paris", "paris", "Paris city"]}}
wnli = {"input_fields": {"text_a": "The cat sat.", "text_a_type": "premise", "text_b": "A cat sat.", "text_b_type": "hypothesis", "classes": ["entailment", "not entailment"], "type_of_relation": "entailment"}, "reference_fields": {"label": "entailment"}}
heval = {"input_fields": {"prompt": "def f(x):\n"}, "reference_fields": {"prompt": "def f(x):\n", "canonical_solution": "    return x", "test_list": ["assert f(1) == 1"]}}
ml = {"input_fields": {"text": "great food, bad service", "text_type": "review", "classes": ["food", "service", "price"], "type_of_classes": "aspects"}, "reference_fields": {"labels": ["food", "service"]}}
ml_empty = {"input_fields": ml["input_fields"], "reference_fields": {"labels": []}}
span = {"input_fields": {"text": "John lives in New York, NY", "text_type": "text", "entity_types": ["PER", "LOC"], "class": "x"}, "reference_fields": {"text": "John lives in New York, NY", "spans_starts": [14, 0], "spans_ends": [26, 4], "labels": ["LOC", "PER"]}}
mixed = {"input_fields": {"a": [1, 2.5, None, True, "s"], "b": 3.0, "c": None, "d": {"k": [1, "v"]}, "e": 1e-05, "f": ["x", "y"]}, "reference_fields": {"out": 7}}

iot = {"__type__": "input_output_template", "input_format": "A={a} B={b} C={c} D={d} E={e} F={f} {{lit}} [{f[0]}] {b!r:>8}", "output_format": "{out}"}

def mcs(**kw):
    d = {"__type__": "multiple_choice_template", "input_format": "Q: {question}\n{choices}\nNums: {numerals}\nA:", "target_field": "answer", "choices_separator": "\n"}
    d.update(kw)
    return d

cases = []
def add(name, spec, inst, split="test"):
    cases.append({"name": name, "template": spec, "instance": inst, "split": split})

for t in ["fm_eval", "mmlu", "helm", "lm_eval_harness", "title", "match"]:
    add("mmlu_" + t, "templates.qa.multiple_choice.with_topic." + t, mc)
add("mmlu_text_target", "templates.qa.multiple_choice.with_topic.mmlu", mc_text)
add("mmlu_inference", "templates.qa.multiple_choice.with_topic.lm_eval_harness", {"input_fields": mc_in}, "__INFERENCE_STREAM__")
for t in ["default", "instruction", "title", "empty", "instruct_question_selects", "instruct_question_select_i_think", "instruct_select_question"]:
    add("sst2_" + t, "templates.classification.multi_class." + t, cls)
for t in ["simple", "title"]:
    add("stsb_" + t, "templates.regression.two_texts." + t, sts)
for t in ["templates.qa.with_context", "templates.qa.extractive", "templates.qa.with_context.simple", "templates.qa.with_context.simple2", "templates.qa.with_context.with_type", "templates.qa.with_context.question_first", "templates.qa.with_context.ffqa", "templates.qa.with_context.title", "templates.qa.with_context.lmms_eval"]:
    add("squad_" + t, t, squad)
add("wnli_default", "templates.classification.multi_class.relation.default", wnli)
add("human_eval", {"__type__": "input_output_template", "input_format": "{prompt}\n", "output_format": "{prompt}\n{canonical_solution}"}, heval)
add("mixed_default_serializer", iot, mixed)
add("mixed_multi_reference", {"__type__": "multi_reference_template", "input_format": "A={a} D={d} F={f}", "references_field": "refs"}, {"input_fields": mixed["input_fields"], "reference_fields": {"refs": ["r1", 2, 3.5]}})
add("multi_ref_random", {"__type__": "multi_reference_template", "input_format": "{question}", "references_field": "answers", "random_reference": True}, {"input_fields": {"question": "q"}, "reference_fields": {"answers": ["a", "b", "c", "d", "e"]}})
add("multi_ref_empty", "templates.qa.with_context.simple", {"input_fields": squad["input_fields"], "reference_fields": {"answers": []}})
add("mc_shuffle", mcs(shuffle_choices=True), mc)
add("mc_shuffle_text", mcs(shuffle_choices=True), mc_text)
add("mc_shuffle_seed", mcs(shuffle_choices=True, shuffle_choices_seed=13), mc)
add("mc_sort_len", mcs(sort_choices_by_length=True, enumerator="lowercase"), mc)
add("mc_sort_alpha_rev", mcs(sort_choices_alphabetically=True, reverse_choices=True, enumerator="numbers"), mc)
add("mc_place_last", mcs(place_correct_choice_position=-1, enumerator="roman", source_choice_format="({choice_numeral}) {choice_text}", target_choice_format="{choice_numeral}. {choice_text}"), mc)
add("mc_custom_enum", mcs(enumerator=["x", "y", "z", "w"], choices_separator=" | "), mc)
add("mc_negative_target", mcs(), {"input_fields": mc_in, "reference_fields": {"answer": -1, "choices": mc_in["choices"]}})
add("mc_missing_text", mcs(), {"input_fields": mc_in, "reference_fields": {"answer": "Brain", "choices": mc_in["choices"]}})
add("mc_instance_instruction", "templates.qa.multiple_choice.with_topic.helm", {"input_fields": mc_in, "reference_fields": mc_ref, "instruction": "Do {topic}!"})
add("multi_label_title", "templates.classification.multi_label.title", ml)
add("multi_label_empty", "templates.classification.multi_label.default", ml_empty)
add("span_title", "templates.span_labeling.extraction.title", span)
add("span_json", {"__type__": "span_labeling_json_template", "input_format": "{text}", "labels_support": ["LOC", "PER"]}, span)
add("key_val", "templates.key_val", {"input_fields": {"a": "x", "b": [1, 2]}, "reference_fields": {"o": "y", "p": 3}})
add("key_val_outputs", {"__type__": "key_val_template", "use_keys_for_outputs": True, "pairs_separator": "\n"}, {"input_fields": {"a": "x"}, "reference_fields": {"o": "y", "p": 3}})
add("null", {"__type__": "null_template", "instruction": "hi {a}"}, {"input_fields": {"a": "x"}, "reference_fields": {"o": "y"}})
add("yes_no", {"__type__": "yes_no_template", "input_format": "Is {text} {class}?", "class_field": "class", "label_field": "labels"}, {"input_fields": {"text": "t", "class": "c"}, "reference_fields": {"class": "c", "labels": ["c"]}})
add("quantize_int", {"__type__": "output_quantizing_template", "input_format": "{x}", "output_format": "{y}", "quantum": 1}, {"input_fields": {"x": 2.5}, "reference_fields": {"y": 3.5}})
add("quantize_float", {"__type__": "output_quantizing_template", "input_format": "{x} {l}", "output_format": "{y}", "quantum": 0.2}, {"input_fields": {"x": 1.13, "l": ["a", "b"]}, "reference_fields": {"y": 3.14}})
add("json_output", {"__type__": "json_output_template", "input_format": "{x}", "output_fields": {"a": "A", "b": "B"}, "wrap_with_list_fields": ["b"]}, {"input_fields": {"x": "é"}, "reference_fields": {"a": "ü", "b": ["q"]}})
add("custom_target", {"__type__": "input_output_template_with_custom_target", "input_format": "{x}", "output_format": "{y}", "reference": "[{y}]"}, {"input_fields": {"x": "1"}, "reference_fields": {"y": "2"}})
add("json_serializer_override", "templates.key_value_extraction.extract_in_json_format", {"input_fields": {"input": "k=v", "keys": ["k", "z"]}, "reference_fields": {"key_value_pairs_answer": {"k": "v", "ü": 1.5}}})
add("list_serializer_override", {"__type__": "input_output_template", "input_format": "{x}|{y}", "output_format": "{z}", "serializer": {"__type__": "multi_type_serializer", "serializers": [{"__type__": "list_serializer"}, {"__type__": "number_serializer"}]}}, {"input_fields": {"x": [1, 2], "y": 2.25}, "reference_fields": {"z": 7}})
add("skip_rendered", "templates.qa.with_context.simple", {"input_fields": {}, "reference_fields": {}, "source": "s", "target": "t", "references": ["t"]})
add("missing_field", {"__type__": "input_output_template", "input_format": "{nope}", "output_format": "{y}"}, {"input_fields": {"x": "1"}, "reference_fields": {"y": "2"}})
add("table_dialog", {"__type__": "input_output_template", "input_format": "{t}\n---\n{d}", "output_format": "{y}"}, {"input_fields": {"t": {"header": ["a", "b"], "rows": [["1,2", 3], [None, "x\"y"]]}, "d": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}, "reference_fields": {"y": "2"}})
add("pairwise_choice", {"__type__": "pairwise_choice_template", "input_format": "{question}|{answer_a}|{answer_b}", "output_format": "{winner}", "choice_a_field": "answer_a", "choice_b_field": "answer_b", "answer_field": "winner", "choice_a_label": "A", "choice_b_label": "B", "choice_tie_label": "Tie", "shuffle": False}, {"input_fields": {"question": "q", "answer_a": "x", "answer_b": "y"}, "reference_fields": {"winner": "choice_b"}})
add("arena_hard", "templates.response_assessment.pairwise_comparative_rating.arena_hard", {"input_fields": {"question": "q", "answer_a": "x", "answer_b": "y", "model_a": "m1", "model_b": "m2"}, "reference_fields": {"answer_a_preference": -2}})
add("format_specs", {"__type__": "input_output_template", "input_format": "[{a:05}][{a:*^9}][{n:>6}][{a!r}][{a!a}]", "output_format": "{o:.2}"}, {"input_fields": {"a": "héllo", "n": 12}, "reference_fields": {"o": "xyz"}})
add("title_fields", {"__type__": "input_output_template", "input_format": "{a} {b}", "output_format": "{o}", "title_fields": ["a"], "instruction": "{a}"}, {"input_fields": {"a": "hello wORLD it's", "b": "keep case"}, "reference_fields": {"o": "x"}})

out = []
for c in cases:
    try:
        t = build(c["template"])
        inst = copy.deepcopy(c["instance"])
        r = t.process_instance(inst, c["split"])
        r = json.loads(json.dumps(r, default=lambda o: o.to_dict() if hasattr(o, "to_dict") else str(o)))
        c["expected"] = r
    except Exception as e:
        c["expected"] = None
        c["error"] = f"{type(e).__name__}: {e}"[:200]
    out.append(c)
json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
