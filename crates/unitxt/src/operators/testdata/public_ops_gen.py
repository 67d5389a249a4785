# Writes public_ops.jsonl: Unitxt 1.26.10's public operator classes that the catalog does not use
# (issue 53: truncate_table_cells, intersect, collate_instances, perturb, ...) run on small streams. Each
# line is {"op", "inputs": {split: [instances]}, "ok": {split: [output instances]} | "error":
# exception class}; every output split is listed, in order. Run from the repository root:
#   .venv/bin/python crates/unitxt/src/operators/testdata/public_ops_gen.py > crates/unitxt/src/operators/testdata/public_ops.jsonl
import copy
import json

from unitxt.artifact import Artifact
from unitxt.stream import MultiStream

cases = []


def case(op, *inputs, streams=None):
    cases.append((op, streams if streams is not None else {"test": list(inputs)}))


TABLE = {"header": ["name", "bio", "age"], "rows": [["Alexandria Ocasio", "Born in the Bronx, New York", 34], ["Bo", "   ", 2.5], ["Christopher Columbus", None, True]]}

# truncate_table_cells: cut cells, answers kept in step, other shapes.
case({"__type__": "truncate_table_cells", "table": "table", "max_length": 10}, {"table": TABLE})
case({"__type__": "truncate_table_cells", "table": "t/table", "max_length": 5, "text_output": "answers"},
     {"t": {"table": TABLE}, "answers": ["Alexandria Ocasio", "Bo", 3, "Christopher Columbus"]})
case({"__type__": "truncate_table_cells", "table": "table"}, {"table": TABLE})
case({"__type__": "truncate_table_cells", "table": "table", "max_length": 3}, {"table": {"header": ["a"]}})
case({"__type__": "truncate_table_cells", "table": "table", "max_length": 3}, {"table": {"rows": [["abcdef", ["x"]]]}})
case({"__type__": "truncate_table_cells", "table": "table", "max_length": 3, "text_output": "a"}, {"table": TABLE, "a": "abcdef"})
case({"__type__": "truncate_table_cells", "table": "table", "max_length": 3, "text_output": "a"}, {"table": TABLE, "a": [["x"]]})
case({"__type__": "truncate_table_cells", "table": "table", "max_length": 3}, {"table": "abc"})
case({"__type__": "truncate_table_cells", "table": "missing", "max_length": 3}, {"table": TABLE})
case({"__type__": "truncate_table_cells", "table": "table", "max_length": 0}, {"table": {"rows": [["é ü 中文", "", "x"]]}})

# serialize_table_row_as_list / convert_table_col_names_to_sequential.
case({"__type__": "serialize_table_row_as_list", "fields": ["name", "info/age", "bio"], "to_field": "row"},
     {"name": "Ada", "info": {"age": 36}, "bio": "A long biography text"})
case({"__type__": "serialize_table_row_as_list", "fields": ["name", "bio", "n"], "to_field": "row", "max_cell_length": 4},
     {"name": "Ada", "bio": "A long biography text", "n": None})
case({"__type__": "serialize_table_row_as_list", "fields": ["x"], "to_field": "row"}, {"y": 1})
for t in [TABLE, {"header": [], "rows": []}, {"rows": [[1]]}, {"header": "abc"}, ["a"]]:
    case({"__type__": "convert_table_col_names_to_sequential", "field": "t"}, {"t": t})
case({"__type__": "convert_table_col_names_to_sequential", "field": "t", "to_field": "u"}, {"t": TABLE})

# add_prefix (a processor), bytes_to_string.
for text in ["  answer: yes ", "yes", "answer:", "", "  \n"]:
    case({"__type__": "add_prefix", "field": "p", "prefix": "answer: "}, {"p": text})
case({"__type__": "add_prefix", "field": "p", "prefix": "x"}, {"p": 5})
for v in ["abc", 5, 2.5, None, [1, "a"], {"k": True}]:
    case({"__type__": "bytes_to_string", "field": "v"}, {"v": v})

# explode_sub_lists (Unitxt's alias of duplicate_by_sub_lists).
case({"__type__": "explode_sub_lists", "field": "d", "to_field": "p"}, {"d": ["q1", "q2", "q3"], "o": 1})
case({"__type__": "explode_sub_lists", "field": "d"}, {"d": [1, 2]})

# divide_all_fields_by.
NESTED = {"a": 10.0, "b": [2.0, 4, {"c": 7.5, "d": "x"}], "e": True, "f": None, "g": 3}
case({"__type__": "divide_all_fields_by", "divisor": 2.0}, NESTED)
case({"__type__": "divide_all_fields_by", "divisor": 4}, NESTED)
case({"__type__": "divide_all_fields_by"}, NESTED)
case({"__type__": "divide_all_fields_by", "divisor": 2.0, "strict": True}, NESTED)
case({"__type__": "divide_all_fields_by", "divisor": 2.0, "strict": True}, {"a": [1.5, 2.5], "b": {"c": 0.5}})
case({"__type__": "divide_all_fields_by", "divisor": 0.0}, {"a": 1.5})
case({"__type__": "divide_all_fields_by", "divisor": 0.0}, {"a": 1})

# flatten_instances.
DEEP = {"a": {"b": {"c": 1, "d": [1, {"x": 2}]}, "e": {}}, "f": "g", "a_b_c": 9}
case({"__type__": "flatten_instances"}, DEEP)
case({"__type__": "flatten_instances", "sep": "/"}, DEEP)
case({"__type__": "flatten_instances", "parent_key": "root", "sep": "."}, DEEP)

# intersect / intersect_corresponding_fields.
case({"__type__": "intersect", "field": "l", "allowed_values": ["b", "f", 1]}, {"l": ["a", "b", "f", "b", 1.0, True]})
case({"__type__": "intersect", "field": "l", "to_field": "m", "allowed_values": []}, {"l": ["a"]})
case({"__type__": "intersect", "field": "l", "allowed_values": ["a"]}, {"l": "abc"})
case({"__type__": "intersect", "field": "l", "allowed_values": ["a"], "process_every_value": True}, {"l": ["a"]})
case({"__type__": "intersect", "field": "l", "allowed_values": "a"}, {"l": ["a"]})
ICF = {"__type__": "intersect_corresponding_fields", "field": "label", "allowed_values": ["b", "f"], "corresponding_fields_to_intersect": ["position"]}
case(ICF, {"label": ["a", "b"], "position": [0, 1], "other": "not"},
     {"label": ["a", "c", "d"], "position": [0, 1, 2], "other": "relevant"},
     {"label": ["a", "b", "f"], "position": [0, 1, 2], "other": "field"},
     {"label": ["f", "b"], "position": [5, 6], "other": "same set"},
     {"label": ["b", "b"], "position": [5, 6], "other": "subset"})
case(ICF, {"label": ["a", "b"], "position": [0]})
case(ICF, {"label": ["a", "b"], "position": "01"})
case(ICF, {"label": "ab", "position": [0, 1]})
case(ICF, {"label": ["a"]})
case(ICF, {"position": [0]})
case(ICF, {"label": [["a"]], "position": [0]})

# collate_instances / collate_instances_by_field.
ROWS = [{"a": i, "b": i % 2, "data_classification_policy": [["public"], ["pii", "public"], ["proprietary"]][i % 3]} for i in range(5)]
for n in [1, 2, 3, 10]:
    case({"__type__": "collate_instances", "batch_size": n}, *ROWS)
case({"__type__": "collate_instances", "batch_size": 0}, *ROWS)
case({"__type__": "collate_instances", "batch_size": 2}, {"a": 1, "b": 2}, {"a": 3})
case({"__type__": "collate_instances", "batch_size": 2}, {"a": 1}, {"a": 3, "c": 4})
GROUPS = [
    {"id": 1, "category": "A", "value": 10, "flag": True, "data_classification_policy": ["public"]},
    {"id": 2, "category": "B", "value": 20, "flag": False, "data_classification_policy": ["pii"]},
    {"id": 3, "category": "A", "value": 30, "flag": True, "data_classification_policy": ["proprietary", "public"]},
    {"id": 4, "category": "B", "value": 40, "flag": False, "data_classification_policy": []},
]
case({"__type__": "collate_instances_by_field", "by_field": "category", "aggregate_fields": ["value", "id"]}, *GROUPS)
# (an empty policy is compared as any other field, so the group B above is inconsistent)
GROUPS2 = GROUPS[:3] + [{**GROUPS[3], "data_classification_policy": ["pii", "public"]}]
case({"__type__": "collate_instances_by_field", "by_field": "category", "aggregate_fields": ["value", "id"]}, *GROUPS2)
case({"__type__": "collate_instances_by_field", "by_field": "category", "aggregate_fields": ["id"]}, *[{k: v for k, v in g.items() if k != "value"} for g in GROUPS2])
case({"__type__": "collate_instances_by_field", "by_field": "flag", "aggregate_fields": ["value", "id", "category"]}, *GROUPS)
case({"__type__": "collate_instances_by_field", "by_field": "category", "aggregate_fields": ["value"]}, *GROUPS)
case({"__type__": "collate_instances_by_field", "by_field": "k", "aggregate_fields": ["v"]}, {"k": 1, "v": "a"}, {"k": 1.0, "v": "b"}, {"k": True, "v": "c"}, {"k": "1", "v": "d"})
case({"__type__": "collate_instances_by_field", "by_field": "nope", "aggregate_fields": ["value"]}, *GROUPS)
case({"__type__": "collate_instances_by_field", "by_field": "category", "aggregate_fields": ["nope"]}, *GROUPS)
case({"__type__": "collate_instances_by_field", "by_field": "k", "aggregate_fields": ["v"]}, {"k": [1], "v": "a"})
case({"__type__": "collate_instances_by_field", "by_field": "k", "aggregate_fields": ["v"]}, {"k": 1, "v": "a", "x": 1}, {"k": 1, "v": "b", "y": 2})

# split_by_nested_group: every split regrouped.
NESTED_GROUPS = {"test": [{"group": "a/b/c", "i": 0}, {"group": "a/x", "i": 1}, {"group": "b", "i": 2}], "train": [{"group": "a/b", "i": 3}]}
for n in [1, 2, 0, -1]:
    case({"__type__": "split_by_nested_group", "number_of_fusion_generations": n}, streams=NESTED_GROUPS)
case({"__type__": "split_by_nested_group", "field_name_of_group": "g"}, streams={"test": [{"g": "p/q"}, {"g": "p"}]})
case({"__type__": "split_by_nested_group"}, streams={"test": [{"g": "p"}]})
case({"__type__": "split_by_nested_group"}, streams={"test": [{"group": 5}]})

# extract_most_common_field_values.
LABELS = {"train": [{"l": x} for x in "aaaaabbbccd"], "test": [{"l": "z"}]}
for args in [{}, {"overall_top_frequency_percent": 50}, {"overall_top_frequency_percent": 80}, {"overall_top_frequency_percent": 0},
             {"min_frequency_percent": 20}, {"min_frequency_percent": 10}, {"min_frequency_percent": 60},
             {"overall_top_frequency_percent": 50, "min_frequency_percent": 5}, {"overall_top_frequency_percent": 101}]:
    case({"__type__": "extract_most_common_field_values", "field": "l", "stream_name": "train", "to_field": "classes", **args}, streams=LABELS)
case({"__type__": "extract_most_common_field_values", "field": "l", "stream_name": "train", "to_field": "c", "process_every_value": True, "overall_top_frequency_percent": 60},
     streams={"train": [{"l": ["a", "b"]}, {"l": ["a"]}, {"l": ["c", "a", "b"]}]})
case({"__type__": "extract_most_common_field_values", "field": "l", "stream_name": "train", "to_field": "c", "overall_top_frequency_percent": 50},
     streams={"train": [{"l": ["a", "b"]}, {"l": ["a", "b"]}, {"l": ["c"]}]})

# balance (Unitxt's base of deterministic_balancer).
case({"__type__": "balance", "fields": ["a"]}, {"a": 1, "b": 1}, {"a": 1, "b": 2}, {"a": 2}, {"a": 3}, {"a": 4})
case({"__type__": "balance", "fields": ["a"], "max_instances": 2}, {"a": 1}, {"a": 1}, {"a": 2}, {"a": 2})

# encode_labels: one numbering over the fields and the splits, lists item by item.
case({"__type__": "encode_labels", "fields": ["a", "b/*"]},
     streams={"train": [{"a": "red", "b": ["red", "blue"], "c": "bread"}, {"a": "blue", "b": ["green"], "c": "water"}],
              "test": [{"a": "green", "b": [], "c": "x"}, {"a": 1, "b": [1.0, True, "1"]}]})
case({"__type__": "encode_labels", "fields": ["a"], "apply_to_streams": ["test"]},
     streams={"train": [{"a": "x"}], "test": [{"a": "y"}, {"a": "x"}, {"a": ["y", "z"]}]})
case({"__type__": "encode_labels", "fields": ["a"]}, {"a": {"k": 1}})
case({"__type__": "encode_labels", "fields": ["a"]}, {"b": 1})

# feature_grouped_shuffle: blocks of equal features shuffled by page, with the shuffle's seed.
QS = [{"q": i // 3, "topic": "ab"[i % 2], "i": i} for i in range(20)]
case({"__type__": "feature_grouped_shuffle", "grouping_features": ["q"]}, *QS)
case({"__type__": "feature_grouped_shuffle", "grouping_features": ["q", "topic"], "shuffle_within_group": True}, *QS)
case({"__type__": "feature_grouped_shuffle", "grouping_features": ["q"], "page_size": 7}, *QS)
case({"__type__": "feature_grouped_shuffle", "grouping_features": ["topic"], "page_size": 5, "shuffle_within_group": True},
     streams={"train": QS[:9], "test": QS[9:]})
case({"__type__": "feature_grouped_shuffle"}, *QS[:4])
case({"__type__": "feature_grouped_shuffle", "grouping_features": ["nope"]}, *QS[:4])

# perturb: one generator for the whole run, values in stream order.
VALUES = [{"v": v} for v in ["positive", "negative", "neutral", "a", "", "hello world", 3, -1, True, 2.5, 0.0, None, [1, 2]] * 4]
case({"__type__": "perturb", "field": "v", "percentage_to_perturb": 100, "select_from": ["positive", "negative", "neutral"]}, *VALUES)
case({"__type__": "perturb", "field": "v", "to_field": "w", "percentage_to_perturb": 50}, *VALUES)
case({"__type__": "perturb", "field": "v"}, *[dict(x) for x in VALUES * 4])
case({"__type__": "perturb", "field": "v", "percentage_to_perturb": 101}, *VALUES[:2])

# apply_operators_field / apply_stream_operators_field: catalog processors named by the data.
PR = [
    # (a list of names in the field is replaced there by the operators Unitxt builds, which
    # JSON cannot hold: the field names one operator here, default_operators several)
    {"prediction": 111, "references": [222, 333], "c": "processors.to_string"},
    {"prediction": " Yes, it is ", "references": [" NO "], "c": "processors.lower_case"},
    {"prediction": "A B", "references": ["x"], "c": None},
    {"prediction": "A B", "references": ["x"]},
]
case({"__type__": "apply_operators_field", "operators_field": "c", "default_operators": ["processors.to_string_stripped", "processors.lower_case"]}, *PR)
case({"__type__": "apply_operators_field", "operators_field": "c"}, *PR[:2])
case({"__type__": "apply_operators_field", "operators_field": "c"}, *PR)
case({"__type__": "apply_operators_field", "operators_field": "c"}, {"prediction": "a", "references": ["b"], "c": ["processors.no_such_processor"]})
SPR = [{"prediction": " Hello World ", "references": [" A "], "ops": ["processors.to_string_stripped", "processors.lower_case"]},
       {"prediction": "Second", "references": ["B"], "ops": ["processors.first_character"]}]
case({"__type__": "apply_stream_operators_field", "field": "ops"}, *SPR)
case({"__type__": "apply_stream_operators_field", "field": "ops", "reversed": True}, *SPR)
case({"__type__": "apply_stream_operators_field", "field": "ops"}, *[{k: v for k, v in x.items() if k != "ops"} for x in SPR])
case({"__type__": "apply_stream_operators_field", "field": "ops"}, streams={"test": [], "train": [dict(SPR[0])]})
case({"__type__": "apply_stream_operators_field", "field": "ops"}, {"prediction": "a", "references": ["b"], "ops": "processors.no_such_processor"})

# constant_size_sample / random_size_sample: demos drawn from a pool held by each instance.
POOL = [{"input_fields": {"q": f"q{i}"}, "reference_fields": {"a": f"a{i}"}} for i in range(6)]
DEMOED = [{"input_fields": {"q": f"q{i}"}, "pool": POOL, "n": i} for i in range(4)]
case({"__type__": "constant_size_sample", "from_field": "pool", "to_field": "demos", "sample_size": 2, "sampler": {"__type__": "random_sampler"}}, *DEMOED)
case({"__type__": "constant_size_sample", "from_field": "pool", "to_field": "demos", "sample_size": 3, "sampling_seed": 7, "sampler": {"__type__": "random_sampler"}}, *DEMOED)
case({"__type__": "constant_size_sample", "from_field": "pool", "to_field": "demos", "sample_size": 2, "sampler": {"__type__": "fixed_indices_sampler", "indices": [0, 4]}}, *DEMOED)
case({"__type__": "constant_size_sample", "from_field": "pool", "to_field": "demos", "sample_size": 6, "sampler": {"__type__": "random_sampler"}}, *DEMOED)
case({"__type__": "constant_size_sample", "from_field": "pool", "to_field": "demos", "sample_size": 1, "skip_demoed_instances": True, "sampler": {"__type__": "random_sampler"}},
     {**DEMOED[0], "demos": []}, DEMOED[1])
case({"__type__": "random_size_sample", "from_field": "pool", "to_field": "demos", "sample_sizes": [0, 1, 2, 3], "sampler": {"__type__": "random_sampler"}}, *DEMOED)
case({"__type__": "random_size_sample", "from_field": "pool", "to_field": "demos", "sample_sizes": [], "sampler": {"__type__": "random_sampler"}}, *DEMOED[:1])

for op, streams in cases:
    line = {"op": op, "inputs": streams}
    try:
        operator = Artifact.from_dict(copy.deepcopy(op))
        ms = MultiStream.from_iterables(copy.deepcopy(streams))
        out = operator(ms)
        line["ok"] = {name: json.loads(json.dumps(list(s))) for name, s in out.items()}
    except Exception as e:  # noqa: BLE001
        line["error"] = type(e).__name__
    print(json.dumps(line, ensure_ascii=False))
