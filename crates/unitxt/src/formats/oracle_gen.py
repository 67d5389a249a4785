# Generates oracle_cases.json: outputs of the real Unitxt 1.26.10 formats, system prompts and
# augmentors on sample instances. Run: /work/venv/bin/python oracle_gen.py > oracle_cases.json
import copy
import json
import os

from unitxt.artifact import fetch_artifact

CAT = os.path.join(os.path.dirname(__import__("unitxt").__file__), "catalog")


def demo(src, tgt, tp="Answer: "):
    return {
        "input_fields": {"q": src},
        "reference_fields": {"a": tgt},
        "source": src,
        "target": tgt,
        "references": [tgt],
        "instruction": "Answer the question.",
        "target_prefix": tp,
        "postprocessors": ["processors.to_string_stripped"],
    }


def inst(**kw):
    base = {
        "input_fields": {"q": "What is 1+1?"},
        "reference_fields": {"a": "2"},
        "source": "Question: What is 1+1?",
        "target": "2",
        "references": ["2"],
        "instruction": "Answer the question.",
        "target_prefix": "Answer: ",
        "postprocessors": ["processors.to_string_stripped"],
        "recipe_metadata": {"template": "t"},
    }
    base.update(kw)
    return base


llama2_sys = fetch_artifact("system_prompts.models.llama2")[0].text
INSTANCES = [
    inst(system_prompt=llama2_sys),
    inst(system_prompt="", demos=[demo("Q: 2+2?", "4"), demo("Q: 3+3 (hard)?", "6", tp="")]),
    inst(system_prompt="Be brief.", instruction="", target_prefix="", demos=[demo("x N", "y")]),
    inst(system_prompt="", instruction="Pick (A) or (B)", target_prefix=""),
    inst(system_prompt="Système ☃", source="", __turns__=[{"role": "user", "content": "hi é"}]),
    inst(source='See <unitxt-img src="http://x/a.png"> and <UNITXT-IMG alt=1 src=\'b.jpg\' >.',
         media={"images": ["zz"], "audios": []}),
    {"source": "bare", "target": "t"},
    inst(demos=[{"source": "only source"}]),
    inst(instruction=None),
]

FORMATS = sorted(
    "formats." + os.path.relpath(os.path.join(d, f), os.path.join(CAT, "formats"))[:-5].replace("/", ".")
    for d, _, fs in os.walk(os.path.join(CAT, "formats"))
    for f in fs
    if f.endswith(".json")
)
INLINE = [
    {"__type__": "chat_api_format", "place_instruction_in_user_turns": True},
    {"__type__": "system_format", "demo_format": "[{instruction}|{source}|{target}]",
     "model_input_format": "{x}{{{system_prompt}}}{demos}\\N{source}", "format_args": {"x": "X:"}},
    {"__type__": "system_format"},
]


def run(op, x):
    try:
        return {"ok": op.process_instance(copy.deepcopy(x))}
    except Exception as e:  # noqa: BLE001
        return {"error": type(e).__name__}


out = {"instances": INSTANCES, "formats": [], "system_prompts": [], "augmentors": []}
for name in FORMATS + [json.dumps(i) for i in INLINE]:
    spec = json.loads(name) if name.startswith("{") else name
    try:
        f = fetch_artifact(spec)[0]
    except Exception as e:  # noqa: BLE001
        out["formats"].append({"format": spec, "build_error": type(e).__name__})
        continue
    if type(f).__name__ in ("HFSystemFormat", "GraniteDocumentsFormat"):
        continue
    out["formats"].append({"format": spec, "cases": [run(f, i) for i in INSTANCES]})

for name in ["system_prompts.models.llama2", "system_prompts.empty",
             {"__type__": "empty_system_prompt"},
             {"__type__": "textual_system_prompt", "text": "T", "skip_rendered_instance": False}]:
    sp = fetch_artifact(name)[0]
    for i in [{"source": "s"}, {"source": "s", "system_prompt": "old"}]:
        out["system_prompts"].append({"prompt": name, "in": i, **run(sp, i)})

AUG_IN = {"input_fields": {"x": "  The quick\tbrown  fox\n\njumps\x1cover\u3000it. ", "y": 5,
                           "z": ["a b"], "w": "one", "v": ""}}
for name in ["augmentors.text.white_space", "augmentors.text.whitespace_prefix_suffix",
             "augmentors.no_augmentation", "augmentors.augment_whitespace_task_input",
             {"__type__": "augment_prefix_suffix"},
             {"__type__": "augment_prefix_suffix", "prefixes": ["<", ">", "="], "suffixes": None, "prefix_len": 7},
             {"__type__": "augment_prefix_suffix", "prefixes": {"a": 1, "b": 0, "c": 2}, "suffixes": {},
              "suffix_len": 2},
             {"__type__": "augment_prefix_suffix", "suffixes": []},
             {"__type__": "augment_prefix_suffix", "prefixes": None, "suffixes": None},
             {"__type__": "augment_prefix_suffix", "prefix_len": 0}]:
    try:
        a = fetch_artifact(name)[0]
    except Exception as e:  # noqa: BLE001
        out["augmentors"].append({"augmentor": name, "build_error": type(e).__name__})
        continue
    a.set_fields(["x", "y", "z", "w", "v"])
    out["augmentors"].append({"augmentor": name, "in": AUG_IN, **run(a, AUG_IN)})
    a = fetch_artifact(name)[0]
    a.set_fields(["missing"])
    out["augmentors"].append({"augmentor": name, "fields": ["missing"], "in": AUG_IN, **run(a, AUG_IN)})

CONTENTS = [
    'a <unitxt-img src="u1" src=\'u2\'> b',
    "<unitxt-img>x",
    '<unitxt-imgx src="a">',
    '<unitxt-img\tSRC="a>b" class=c>tail',
    '<unitxt-img src="a" no close',
    '<unitxt-img a=">" src="q">',
    '<unitxt-img src="">x<unitxt-img src="y">',
    '<<unitxt-img  src="p">>',
    '<unıtxt-ımg ſrc="k">',
    '<unitxt-img src="a"',
    "plain text",
]
chat = fetch_artifact("formats.chat_api")[0]
out["contents"] = [[t, chat.to_content(t, {})] for t in CONTENTS]
print(json.dumps(out, indent=1, ensure_ascii=False))
