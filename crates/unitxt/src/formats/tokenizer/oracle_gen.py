"""Writes chat_template_cases.json: chat templates rendered by transformers' apply_chat_template.

Usage (with a venv holding transformers==5.23.0 and jinja2==3.1.6, as scripts/test.sh installs):
  python crates/unitxt/src/formats/tokenizer/oracle_gen.py

Each case is a model (its tokenizer_config.json and other files, written into a temporary Hugging
Face hub cache), a conversation and keyword arguments; the expected text is
`tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True, **kwargs)`,
or the type and message of the error it raises.
"""
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
COMMIT = "c0ffee"
TOKENIZER_JSON = '{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],"normalizer":null,"pre_tokenizer":{"type":"Whitespace"},"post_processor":null,"decoder":null,"model":{"type":"WordLevel","vocab":{"<unk>":0},"unk_token":"<unk>"}}'

SHOW = (
    "{% for m in messages %}{{ m | tojson }}|{{ m | tojson(indent=2) }}|"
    "{{ m | tojson(separators=(',', ':'), sort_keys=true) }}|{% if m.content is defined %}"
    "{{ m.content.strip().upper() }}|{{ m.content.split() }}|{{ m.content.startswith(' x') }}{% endif %}\n"
    "{% endfor %}{{ none }}|{{ true }}|{{ [1, 'a', none, 2.50] }}|{{ {'k': 1.0, 'b': false} }}|{{ tools }}|"
    "{{ documents }}|{{ add_generation_prompt }}|{{ bos_token }}{{ eos_token }}{{ unk_token }}|{{ image_token }}|{{ extra }}"
)
LOOP = (
    "{% for m in messages %}{% if m.role == 'bad' %}{{ raise_exception('Bad role: ' + m.role) }}{% endif %}"
    "[{{ m | tojson }}]{% if loop.index0 == 1 %}{% break %}{% endif %}{% endfor %}"
)
DOCS = (
    "{%- for d in documents %}\n  <doc {{ loop.index }}>{{ d['title'] | string }}:{{ d.text }}\n{%- endfor %}\n"
    "{{ controls | tojson }}{% if 'citations' in controls %} cite{% endif %}\n"
    "{%- for m in messages %}\n    {{ m.role }}: {{ m.content }}\n{% endfor %}"
)
MESSAGES = [
    {"role": "user", "content": " x <é> & 'q'  "},
    {"role": "assistant", "content": "ok", "reasoning": "because"},
    {"role": "user", "content": None, "extra": [1, {"z": None}]},
]
CASES = [
    {"name": "show", "model": "a",
     "tokenizer_config": {"bos_token": {"__type": "AddedToken", "content": "<s>", "lstrip": False}, "eos_token": "</s>",
                          "image_token": "<image>", "chat_template": SHOW},
     "messages": MESSAGES, "kwargs": {"extra": {"n": 3}}},
    {"name": "named_default", "model": "b",
     "tokenizer_config": {"eos_token": "E", "added_tokens_decoder": {},
                          "chat_template": [{"name": "default", "template": LOOP}, {"name": "tool_use", "template": "TOOLS {{ tools | tojson }} " + LOOP}]},
     "messages": MESSAGES, "kwargs": {}},
    {"name": "named_tool_use", "model": "b", "messages": MESSAGES, "kwargs": {"tools": [{"name": "f"}]}},
    {"name": "named_by_kwarg", "model": "b", "messages": MESSAGES, "kwargs": {"chat_template": "tool_use"}},
    {"name": "raise_exception", "model": "b", "messages": [{"role": "bad", "content": "x"}], "kwargs": {}},
    {"name": "jinja_file_and_legacy_map", "model": "c",
     "tokenizer_config": {"chat_template": "ignored"},
     "files": {"chat_template.jinja": "J {{ eos_token }} {{ pad_token }} {% for m in messages %}{{ m.content }}{% endfor %}",
               "special_tokens_map.json": json.dumps({"eos_token": {"content": "<eos>", "lstrip": False}, "pad_token": "<pad>"})},
     "messages": MESSAGES[:1], "kwargs": {}},
    {"name": "template_text_by_kwarg", "model": "c", "messages": MESSAGES[:2],
     "kwargs": {"chat_template": "X {{ messages | length }} {{ eos_token }}"}},
    {"name": "documents_and_trimming", "model": "d",
     "tokenizer_config": {"chat_template": DOCS},
     "messages": MESSAGES[:2],
     "kwargs": {"documents": [{"title": "", "text": "first"}, {"text": "second"}],
                "controls": {"citations": True, "length": "long"}}},
]


def main():
    hub = tempfile.mkdtemp(prefix="chat-oracle-")
    os.environ["HF_HUB_CACHE"] = hub
    os.environ["HF_HUB_OFFLINE"] = "1"
    written = set()
    for case in CASES:
        if case["model"] in written:
            continue
        written.add(case["model"])
        repo = os.path.join(hub, f"models--t--{case['model']}")
        snap = os.path.join(repo, "snapshots", COMMIT)
        os.makedirs(snap)
        os.makedirs(os.path.join(repo, "refs"))
        open(os.path.join(repo, "refs", "main"), "w").write(COMMIT)
        cfg = dict(case["tokenizer_config"], tokenizer_class="PreTrainedTokenizerFast")
        json.dump(cfg, open(os.path.join(snap, "tokenizer_config.json"), "w"))
        open(os.path.join(snap, "tokenizer.json"), "w").write(TOKENIZER_JSON)
        open(os.path.join(snap, "config.json"), "w").write('{"model_type": "llama"}')
        for name, text in case.get("files", {}).items():
            open(os.path.join(snap, name), "w").write(text)
    from transformers import AutoTokenizer

    out = []
    models = {c["model"]: c for c in CASES if "tokenizer_config" in c}
    for case in CASES:
        tok = AutoTokenizer.from_pretrained(f"t/{case['model']}")
        row = {"name": case["name"], "model": case["model"], "tokenizer_config": models[case["model"]]["tokenizer_config"],
               "files": models[case["model"]].get("files", {}), "messages": case["messages"], "kwargs": case["kwargs"]}
        try:
            row["expected"] = tok.apply_chat_template(case["messages"], tokenize=False, add_generation_prompt=True, **case["kwargs"])
        except Exception as e:  # noqa: BLE001 - the error is the expected outcome
            row["error"] = str(e)
        out.append(row)
    with open(os.path.join(HERE, "chat_template_cases.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"{len(out)} cases", file=sys.stderr)


if __name__ == "__main__":
    main()
