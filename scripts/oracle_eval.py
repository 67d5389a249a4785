"""Runs Unitxt 1.26.10's `evaluate` on deterministic noisy predictions and writes the scores.

Usage: python scripts/oracle_eval.py RECIPES_FILE OUT_DIR

RECIPES_FILE has one `SPLIT<TAB>RECIPE` per line (# comments allowed). For each, the split is
loaded with `unitxt.load_dataset`, predictions are derived from each instance's target by its
index (see `noisy_prediction`; no randomness), and `unitxt.evaluate(predictions, dataset)` is
run. OUT_DIR/<key>.json gets {"recipe", "split", "predictions", "global", "instances"} where
`instances` holds each instance's `score["instance"]`, plus "groups" / "subsets" (Unitxt's
`score["groups"]` / `score["subsets"]`, as in `groups_scores` / `subsets_scores`) when present; NaN is written as the string "NaN" and
infinities as "Infinity"/"-Infinity" (JSON has no such numbers). key is the first 16 hex digits
of sha1("SPLIT\tRECIPE"). A failing recipe writes OUT_DIR/<key>.error. Existing files are kept.
"""
import hashlib
import json
import math
import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import key, offline_tree, skip_offline_retry_sleeps  # noqa: E402

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("UNITXT_ALLOW_UNVERIFIED_CODE", "True")


def target_prefix(task_data):
    """The template's target prefix formatted with the task data ("" when none)."""
    from unitxt.artifact import fetch_artifact

    template = task_data.get("metadata", {}).get("template")
    if not isinstance(template, str):
        return ""
    prefix = getattr(fetch_artifact(template)[0], "target_prefix", "") or ""
    return prefix.format(**task_data)


def noisy_prediction(i, target, task_data):
    """The prediction of instance `i`: one of several kinds of noise chosen by `i % 10`."""
    kind = i % 10
    if kind == 9:
        # The answer after the template's target prefix (which evaluation strips).
        return " " + target_prefix(task_data) + " " + target
    if kind == 0:
        return target
    if kind == 1:
        # A wrong answer: another class / choice label when the task has them, else a changed value.
        for field in ("classes", "options"):
            opts = task_data.get(field)
            if isinstance(opts, list) and len(opts) > 1:
                others = [str(o) for o in opts if str(o) != target]
                if others:
                    return others[i % len(others)]
        try:
            return str(round(float(target) + 1.25, 2))
        except ValueError:
            return target[::-1] + "x"
    if kind == 2:
        return "  " + target.upper() + " \n"
    if kind == 3:
        return "\n" + target + "\nbecause of the text above.\nDone."
    if kind == 4:
        return target[: max(1, len(target) // 2)]
    if kind == 5:
        return ""
    if kind == 6:
        return target + ". That is my answer"
    if kind == 7:
        return "Answer: " + target.lower()
    return "\t" + target + "\t"


def clean(v):
    """JSON-safe copy: NaN/inf as strings, numpy scalars as Python numbers."""
    if isinstance(v, dict):
        return {str(k): clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [clean(x) for x in v]
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        v = v.item()
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
    return v


def main():
    recipes_file, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    if "UNITXT_HF_OFFLINE_DATASETS_PATH" not in os.environ:
        tree = os.path.join(out_dir, "hf-offline")
        offline_tree(os.environ["HF_HUB_CACHE"], tree)
        os.environ["UNITXT_HF_OFFLINE_DATASETS_PATH"] = tree
    from unitxt import evaluate, load_dataset

    skip_offline_retry_sleeps()

    for line in open(recipes_file, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        split, recipe = line.split("\t", 1)
        k = key(split, recipe)
        out = os.path.join(out_dir, k + ".json")
        err = os.path.join(out_dir, k + ".error")
        if os.path.exists(out) or os.path.exists(err):
            continue
        try:
            ds = load_dataset(recipe, split=split, use_cache=False)
            predictions = [
                noisy_prediction(i, row["target"], json.loads(row["task_data"]))
                for i, row in enumerate(ds)
            ]
            results = evaluate(predictions=predictions, data=ds)
            doc = {
                "recipe": recipe,
                "split": split,
                "predictions": predictions,
                "global": clean(dict(results.global_scores)),
                "instances": [clean(r["score"]["instance"]) for r in results],
            }
            for part in ("groups", "subsets"):
                if len(results) and part in results[0]["score"]:
                    doc[part] = clean(results[0]["score"][part])
            tmp = out + ".tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(doc, f, ensure_ascii=False, indent=1)
            os.replace(tmp, out)
            print(f"oracle-eval ok   {k} {recipe}", file=sys.stderr)
        except Exception:
            with open(err, "w", encoding="utf-8") as f:
                f.write(traceback.format_exc())
            print(f"oracle-eval FAIL {k} {recipe}", file=sys.stderr)


if __name__ == "__main__":
    main()
