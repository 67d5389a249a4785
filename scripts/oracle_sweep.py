"""Random recipes over the cards whose data is in the local HF hub cache, run through Unitxt
1.26.10 (the oracle) and unitxt-rs, compared field by field.

Usage: python scripts/oracle_sweep.py --bin target/release/unitxt-rs [--n 50] [--seed 0]
                                      [--out target/sweep] [--recipes FILE]

Each recipe combines a card whose loader reads a dataset of HF_HUB_CACHE with a template (one of
the card's own, one that another card of the same task lists, or any), and at random a format,
a system prompt, an augmentor, a serializer, demos (count, pool size, taken from which split) and instance limits,
all drawn from Unitxt's catalog (the last of `unitxt-rs catalog where`). The drawn recipes
go to OUT/recipes.tsv (the format of tests/oracle_recipes.tsv, ready to be copied there), Unitxt's
rows to OUT/<key>.jsonl (or .error) as scripts/oracle.py writes them, ours beside them as
<key>.ours.jsonl (or .ours.error). A recipe passes when both refuse it, or both give the same
rows with the same fields and values. With --eval, each recipe that Unitxt prepares is also
evaluated by scripts/oracle_eval.py (Unitxt's `evaluate` on derived noisy predictions, into
OUT/eval) and by `unitxt-rs evaluate` on the same predictions: global scores must agree to 1e-9,
confidence interval bounds to 1e-6, and every instance score to 1e-9. The report lists each
failing recipe with its first difference; the exit status is 1 when any fails.
"""
import argparse
import glob
import json
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import oracle  # noqa: E402


def catalog_dir(binary):
    if os.environ.get("UNITXT_RS_CATALOG"):
        return os.environ["UNITXT_RS_CATALOG"]
    # `catalog where` lists the catalogs by precedence; Unitxt's own is the last.
    out = subprocess.run([binary, "catalog", "where"], capture_output=True, text=True)
    if out.returncode != 0 or not out.stdout.strip():
        sys.exit(f"cannot find Unitxt's catalog: {out.stderr.strip()}")
    return out.stdout.strip().splitlines()[-1]


def load(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        return json.loads(text)
    except ValueError:
        return None


def names(cat, folder):
    root = os.path.join(cat, folder)
    out = []
    for f in glob.glob(os.path.join(root, "**", "*.json"), recursive=True):
        rel = os.path.relpath(f, cat)[: -len(".json")]
        out.append(rel.replace(os.sep, "."))
    return sorted(out)


def local_datasets(hub):
    have = set()
    for entry in os.listdir(hub):
        if entry.startswith("datasets--"):
            org, name = entry[len("datasets--"):].split("--", 1)
            snaps = glob.glob(os.path.join(hub, entry, "snapshots", "*"))
            configs = set()
            for s in snaps:
                configs |= {d for d in os.listdir(s) if os.path.isdir(os.path.join(s, d))}
            have.add((f"{org}/{name}", frozenset(configs)))
    return have


def template_names(card, cat):
    """The template names a card lists (a list, a dict, or a templates_list artifact)."""
    t = card.get("templates")
    if isinstance(t, str):
        t = load(os.path.join(cat, *t.split(".")) + ".json") or {}
    if isinstance(t, dict):
        t = t.get("items", t)
    if isinstance(t, dict):
        t = list(t.values())
    return [x for x in (t or []) if isinstance(x, str)]


def local_cards(cat, hub):
    have = local_datasets(hub)
    cards = {}
    for name in names(cat, "cards"):
        card = load(os.path.join(cat, *name.split(".")) + ".json")
        if not isinstance(card, dict):
            continue
        loader = card.get("loader")
        if not isinstance(loader, dict) or loader.get("__type__") != "load_hf":
            continue
        path, config = loader.get("path"), loader.get("name")
        for repo, configs in have:
            if path == repo and (config is None or not configs or config in configs):
                cards[name] = card
    return cards


def draw(rng, cards, cat, dense=False):
    # With `dense`, each part a user adds to a card (format, system prompt, augmentor,
    # serializer, demos) is drawn nine times in ten.
    def chance(p):
        return rng.random() < (0.9 if dense else p)

    by_task = {}
    for name, card in cards.items():
        by_task.setdefault(json.dumps(card.get("task"), sort_keys=True), set()).update(template_names(card, cat))
    formats = [f for f in names(cat, "formats")]
    prompts = names(cat, "system_prompts")
    augmentors = names(cat, "augmentors")
    text_augmentors = [a for a in augmentors if ".image." not in a and ".table." not in a]
    serializers = names(cat, "serializers")
    # A card family (mmlu's 57 subjects) counts once, so that small families are drawn too.
    families = {}
    for name in cards:
        families.setdefault(name.split(".")[1], []).append(name)
    fam = rng.choice(sorted(families))
    name = rng.choice(sorted(families[fam]))
    card = cards[name]
    own = template_names(card, cat)
    same_task = sorted(by_task[json.dumps(card.get("task"), sort_keys=True)])
    pool = own if (own and rng.random() < 0.6) or not same_task else same_task
    if rng.random() < 0.1:
        pool = names(cat, "templates")
    if not pool:
        return None
    parts = [f"card={name}"]
    if own and rng.random() < 0.1:
        parts.append(f"template_card_index={rng.randrange(len(own) + 1)}")
    else:
        parts.append(f"template={rng.choice(pool)}")
    if chance(0.6):
        parts.append(f"format={rng.choice(formats)}")
    if chance(0.5):
        parts.append(f"system_prompt={rng.choice(prompts)}")
    if chance(0.3):
        parts.append(f"augmentor={rng.choice(text_augmentors if rng.random() < 0.8 else augmentors)}")
    if chance(0.05):
        parts.append(f"serializer={rng.choice(serializers)}")
    if rng.random() < 0.1:
        parts.append(f"num_demos=[{rng.choice([0, 1])},{rng.choice([2, 3])}]")
        parts.append(f"demos_pool_size={rng.choice([5, 10])}")
    elif chance(0.6):
        n = rng.choice([1, 2, 3, 5])
        parts.append(f"num_demos={n}")
        parts.append(f"demos_pool_size={rng.choice([n, n + 1, n + 2, 10, 20, 50])}")
        if rng.random() < 0.3:
            parts.append(f"demos_taken_from={rng.choice(['train', 'validation', 'test'])}")
        if rng.random() < 0.15:
            parts.append("sampler=splitters.diverse_labels_sampler")
        if rng.random() < 0.15:
            parts.append(f"demos_sampling_seed={rng.choice([0, 7, 42])}")
        if rng.random() < 0.1:
            parts.append("demos_removed_from_data=False")
        if rng.random() < 0.1:
            parts.append("skip_demoed_instances=True")
    if rng.random() < 0.05:
        parts.append(f"metrics=[{rng.choice(['metrics.accuracy', 'metrics.f1_micro', 'metrics.rouge'])}]")
    if rng.random() < 0.05:
        parts.append(f"postprocessors=[{rng.choice(['processors.lower_case', 'processors.take_first_word', 'processors.to_string_stripped'])}]")
    if rng.random() < 0.05:
        parts.append("group_by=[template]")
    split = "test" if rng.random() < 0.8 else rng.choice(["train", "validation"])
    if rng.random() < 0.05:
        balancer = rng.choice(["classification.by_label", "classification.minimum_one_example_per_class", "qa.by_answer", "multi_label.zero_vs_many_labels"])
        parts.append(f"{split}_refiner=operators.balancers.{balancer}")
    parts.append(f"max_{split}_instances={rng.choice([5, 10, 30])}")
    if rng.random() < 0.2:
        parts.append(f"loader_limit={rng.choice([50, 200])}")
    return split, ",".join(parts)


def first_diff(ours, theirs):
    if len(ours) != len(theirs):
        return f"{len(ours)} instances, Unitxt has {len(theirs)}"
    for i, (o, t) in enumerate(zip(ours, theirs)):
        if sorted(o) != sorted(t):
            return f"instance {i}: fields {sorted(o)}, Unitxt has {sorted(t)}"
        for f in t:
            if o[f] != t[f]:
                a, b = json.dumps(o[f], ensure_ascii=False), json.dumps(t[f], ensure_ascii=False)
                at = next((j for j in range(min(len(a), len(b))) if a[j] != b[j]), min(len(a), len(b)))
                return f"instance {i}, field {f!r} at char {at}:\n    ours:   {a[max(0, at - 60):at + 80]!r}\n    unitxt: {b[max(0, at - 60):at + 80]!r}"
    return None


def close(a, b, tol):
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return a == b or abs(a - b) <= tol * max(1.0, abs(b))
    # The oracle writes NaN as "NaN"; our results JSON as NaN or null (JSON has no NaN).
    if b == "NaN" and (a is None or a == "NaN" or (isinstance(a, float) and a != a)):
        return True
    return a == b


def score_diff(ours, theirs):
    """The first score that differs between two results documents (`global`, `instances`)."""
    for name, v in theirs["global"].items():
        tol = 1e-6 if "_ci_" in name else 1e-9
        o = ours["global"].get(name, "<missing>")
        if not close(o, v, tol):
            return f"global {name}: ours {o!r}, Unitxt {v!r}"
    extra = sorted(set(ours["global"]) - set(theirs["global"]))
    if extra:
        return f"global scores Unitxt does not have: {extra}"
    for i, (o, t) in enumerate(zip(ours["instances"], theirs["instances"])):
        for name, v in t.items():
            if not close(o.get(name, "<missing>"), v, 1e-9):
                return f"instance {i} {name}: ours {o.get(name, '<missing>')!r}, Unitxt {v!r}"
    return None


def evaluate(a, split, recipe, k):
    """Our scores on the predictions the oracle used, against Unitxt's; a problem or None."""
    golden = os.path.join(a.out, "eval", k + ".json")
    if not os.path.exists(golden):
        return None  # Unitxt's evaluate failed: nothing to compare (its error is in eval/)
    theirs = json.load(open(golden, encoding="utf-8"))
    preds = os.path.join(a.out, "eval", k + ".predictions.json")
    with open(preds, "w", encoding="utf-8") as f:
        json.dump(theirs["predictions"], f)
    out = os.path.join(a.out, "eval", k + ".ours.json")
    run = subprocess.run([a.bin, "evaluate", recipe, "--split", split, "--predictions", preds, "-o", out], capture_output=True, text=True)
    if run.returncode != 0:
        return "evaluate: we fail where Unitxt scores: " + (run.stderr.strip().splitlines() or ["?"])[0]
    ours = json.load(open(out, encoding="utf-8"))

    def as_json_numbers(v):
        if isinstance(v, dict):
            return {k: as_json_numbers(x) for k, x in v.items()}
        if isinstance(v, list):
            return [as_json_numbers(x) for x in v]
        return v

    return score_diff(as_json_numbers(ours), theirs)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bin", required=True)
    p.add_argument("--n", type=int, default=50)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="target/sweep")
    p.add_argument("--recipes", help="run these SPLIT<TAB>RECIPE lines instead of drawing")
    p.add_argument("--eval", action="store_true", help="also compare evaluation scores")
    p.add_argument("--dense", action="store_true", help="draw format, system prompt, augmentor, serializer and demos nine times in ten")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    cat = catalog_dir(a.bin)
    recipes_file = os.path.join(a.out, "recipes.tsv")
    if a.recipes:
        recipes_file = a.recipes
    else:
        rng = random.Random(a.seed)
        cards = local_cards(cat, os.environ["HF_HUB_CACHE"])
        drawn = []
        while len(drawn) < a.n:
            r = draw(rng, cards, cat, a.dense)
            if r and r not in drawn:
                drawn.append(r)
        with open(recipes_file, "w", encoding="utf-8") as f:
            for split, recipe in drawn:
                f.write(f"{split}\t{recipe}\n")
    # Unitxt's rows, as the oracle test's goldens are made.
    subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "oracle.py"), recipes_file, a.out], check=True)
    if a.eval:
        subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "oracle_eval.py"), recipes_file, os.path.join(a.out, "eval")], check=True)
    failed = 0
    total = 0
    for line in open(recipes_file, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        total += 1
        split, recipe = line.split("\t", 1)
        k = oracle.key(split, recipe)
        ours_path = os.path.join(a.out, k + ".ours.jsonl")
        run = subprocess.run([a.bin, "prepare", recipe, "--split", split, "-o", ours_path], capture_output=True, text=True)
        theirs_err = os.path.exists(os.path.join(a.out, k + ".error"))
        problem = None
        if run.returncode != 0:
            if not theirs_err:
                problem = "we refuse, Unitxt does not: " + run.stderr.strip().splitlines()[0 if run.stderr.strip() else -1] if run.stderr.strip() else "we fail"
        elif theirs_err:
            last = open(os.path.join(a.out, k + ".error"), encoding="utf-8").read().strip().splitlines()[-1]
            problem = f"Unitxt refuses ({last}), we do not"
        else:
            ours = [json.loads(x) for x in open(ours_path, encoding="utf-8")]
            theirs = [json.loads(x) for x in open(os.path.join(a.out, k + ".jsonl"), encoding="utf-8")]
            problem = first_diff(ours, theirs)
            if not problem and a.eval:
                problem = evaluate(a, split, recipe, k)
        if problem:
            failed += 1
            print(f"FAIL {split}\t{recipe}\n  {problem}")
    print(f"{total - failed} of {total} recipes agree")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
