"""Lists Unitxt 1.26.10's public artifact classes in its operator, processor, struct-data,
serializer, template and related modules, and says for each whether this engine builds its
`__type__` (a line of `artifact_types!` in crates/unitxt/src/registry/mod.rs), knows it but
cannot run it here (`registry::NEEDS`), reads it as a part of the artifact that holds it
(`PART_TYPES` of registry/check.rs: a dialog template's `dialog_fields_data`, ...), or not.
Classes that cannot be artifacts of a catalog (abstract ones, and the bases and mixins named in
BASES) are counted apart.

Run with the Python that has Unitxt installed (the oracle's venv):

    .venv/bin/python scripts/public_classes.py [--missing] [--json] [--registry FILE]

Prints one line per module (public, bases, built, needs, missing) and the totals; `--missing`
also lists the classes not built, `--json` prints everything as one JSON document. `--registry`
reads another copy of registry/mod.rs (`git show REV:crates/unitxt/src/registry/mod.rs`, to
count an earlier revision).
"""

import importlib
import inspect
import json
import os
import re
import sys

from unitxt.artifact import Artifact

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
REGISTRY = os.path.join(ROOT, "crates", "unitxt", "src", "registry", "mod.rs")
CHECK = os.path.join(ROOT, "crates", "unitxt", "src", "registry", "check.rs")

# The modules searched: those the issue names, and the other modules of stream operators.
MODULES = [
    "operators", "processors", "struct_data_operators", "serializers", "templates",
    "string_operators", "collections_operators", "dialog_operators", "span_lableing_operators",
    "stream_operators", "image_operators", "splitters", "augmentors", "formats", "system_prompts",
]

# Public classes that are bases or mixins, not artifacts a catalog or a user instantiates as
# they are (Unitxt does not mark them abstract), with why.
BASES = {
    "compute_expression_mixin": "mixin of the expression operators",
    "pillow_mixin": "mixin of the image operators",
    "iterable_source": "base of the in-memory sources",
    "image_augmentor": "base of the image augmentors",
    "single_type_serializer": "base of the serializers",
    "serialize_table": "base of the table serializers",
    "apply_template": "base of apply_single_template / apply_random_template",
    "span_labeling_base_template": "base of the span-labeling templates",
    "input_format_template": "base of the input-format templates",
    "output_format_template": "base of the output-format templates",
    "json_output_format_template": "base of json_output_template",
    "template": "base of the templates",
    "base_format": "base of the formats",
    "format": "base of the formats",
    "system_prompt": "base of the system prompts",
    "augmentor": "base of the augmentors",
    "text_augmentor": "base of the text augmentors",
    "task_inputs_augmentor": "base of the augmentors",
    "type_dependent_augmentor": "base of the augmentors",
    "sampler": "base of the samplers",
    "splitter": "base of the splitters",
    "assign_demos_to_instance": "base of the demo assigners",
    "field_operator": "base of the field operators",
    "instance_field_operator": "base of the instance field operators",
    "image_field_operator": "base of the image field operators",
}


def engine_types(registry=REGISTRY):
    """The `__type__` names of `artifact_types!` and of `NEEDS`, read from the registry's source."""
    src = open(registry, encoding="utf-8").read()
    table = src[src.index("artifact_types! {"):]
    table = table[: table.index("\n}\n")]
    table = "\n".join(line.split("//")[0] for line in table.splitlines())
    built = set()
    # An entry: `"name" | "alias" => shape(...)`, the alternatives possibly on several lines.
    for m in re.finditer(r'(?m)^\s*\|?\s*((?:"[a-z0-9_]+"\s*\|\s*)*"[a-z0-9_]+")\s*=>', table):
        built.update(re.findall(r'"([a-z0-9_]+)"', m.group(1)))
    needs_src = src[src.index("pub const NEEDS"):]
    needs_src = needs_src[: needs_src.index("];")]
    needs = set(re.findall(r'\("([a-z0-9_]+)",', needs_src))
    check = open(CHECK, encoding="utf-8").read()
    parts_src = check[check.index("const PART_TYPES"):]
    built |= set(re.findall(r'"([a-z0-9_]+)"', parts_src[: parts_src.index("];")]))
    return built, needs


def public_classes(module):
    """(`__type__`, class name) of the artifact classes `unitxt.<module>` defines."""
    mod = importlib.import_module(f"unitxt.{module}")
    out = []
    for name, cls in inspect.getmembers(mod, inspect.isclass):
        if cls.__module__ == mod.__name__ and issubclass(cls, Artifact) and not name.startswith("_"):
            out.append((cls.get_artifact_type(), name, inspect.isabstract(cls)))
    return sorted(out)


def main(argv):
    registry = argv[argv.index("--registry") + 1] if "--registry" in argv else REGISTRY
    built, needs = engine_types(registry)
    report = {}
    totals = dict(public=0, bases=0, built=0, needs=0, missing=0)
    for module in MODULES:
        rows = {"bases": [], "built": [], "needs": [], "missing": []}
        for t, name, abstract in public_classes(module):
            if t in built:
                rows["built"].append(name)
            elif t in needs:
                rows["needs"].append(name)
            elif abstract or t in BASES:
                rows["bases"].append(name)
            else:
                rows["missing"].append(name)
        report[module] = rows
        totals["public"] += sum(len(v) for v in rows.values())
        for k, v in rows.items():
            totals[k] += len(v)
    if "--json" in argv:
        print(json.dumps({"modules": report, "totals": totals}, indent=2))
        return
    print(f"{'module':26} {'public':>6} {'bases':>6} {'built':>6} {'needs':>6} {'missing':>7}")
    for module, rows in report.items():
        n = sum(len(v) for v in rows.values())
        print(f"{module:26} {n:6} {len(rows['bases']):6} {len(rows['built']):6} {len(rows['needs']):6} {len(rows['missing']):7}")
    t = totals
    print(f"{'total':26} {t['public']:6} {t['bases']:6} {t['built']:6} {t['needs']:6} {t['missing']:7}")
    if "--missing" in argv:
        for module, rows in report.items():
            if rows["missing"]:
                print(f"\n{module}: " + ", ".join(rows["missing"]))


if __name__ == "__main__":
    main(sys.argv[1:])
