# Regenerates oracle.json: runs every catalog processor of the real Unitxt on tricky inputs.
# Usage: /work/venv/bin/python gen_oracle.py > oracle.json
import json, math, os, sys
from unitxt.artifact import fetch_artifact
from unitxt.stream import MultiStream
import unitxt as C

root = os.path.join(os.path.dirname(C.__file__), "catalog", "processors")
names = sorted(
    "processors." + os.path.relpath(os.path.join(d, f), root)[:-5].replace(os.sep, ".")
    for d, _, fs in os.walk(root) for f in fs if f.endswith(".json")
)
preds = ["", "   ", "Hello World", " 3.5\n", "abc", "yes", "no", "Yes, it is.\nSecond line\n", "The answer: B) a cat",
         "rating [[7]] done", "[[ 8.5 / 10 ]]", "[[A>B]]", "[[B>>A]]", "positive", "negative", "suggestion",
         "This is not toxic", "hate speech!", "-12.5 apples", "\n\nfoo  bar\n\n baz qux \n", "safe\nmore", "unsafe",
         "a, b ,c", "PER: John, LOC: Paris", "None", "1,000", "1_000", "mostly correct", "very good", "bad",
         "[1, 'x', (2, 3)]", '{"name": "f", "arguments": {"a": 1}}', '[{"name": "f", "arguments": {}}]',
         "- item one\n- item two", "é à ß İ Straße", "An apple and the pear", "nan", "inf", "10", "-0",
         "```sql\nSELECT * FROM t; -- x\n```", "I think select a from b;", 3.5, 7, True, None, ["a", "b"],
         "```\nwith x as (select 1) select * from x\n```", "```sql```", "know the truth", "Not sure. Yes!",
         [{"top_tokens": [{"text": " Yes", "logprob": -0.1}, {"text": "no", "logprob": -2.0}]}],
         [{"top_tokens": [{"text": "yesterday", "logprob": -0.1}]}, {"top_tokens": [{"text": "_NO_", "logprob": -1}]}]]
options = ["cat", "dog", "a bird", "Hello", "yes", "no"]

def clean(v):
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return {"__float__": repr(v)}
    if isinstance(v, (list, tuple)):
        return [clean(x) for x in v]
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items()}
    if hasattr(v, "item"):
        return clean(v.item())
    return v

out = []
for name in names:
    try:
        op, _ = fetch_artifact(name)
    except Exception as e:
        out.append({"processor": name, "build_error": type(e).__name__})
        continue
    cases = []
    for p in preds:
        inst = {"prediction": p, "references": [p], "task_data": {"options": options}}
        try:
            ms = MultiStream.from_iterables({"test": [json.loads(json.dumps(inst))]})
            res = list(op(ms)["test"])[0]
            cases.append({"in": p, "prediction": clean(res["prediction"]), "references": clean(res["references"])})
        except Exception as e:
            cases.append({"in": p, "error": type(e).__name__})
    out.append({"processor": name, "cases": cases})
json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
