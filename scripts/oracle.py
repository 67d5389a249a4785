"""Runs Unitxt 1.26.10 (the behavioural reference) on recipes and writes its instances.

Usage: python scripts/oracle.py RECIPES_FILE OUT_DIR

RECIPES_FILE has one `SPLIT<TAB>RECIPE` per line (# comments allowed). For each, the rows of
`unitxt.load_dataset(RECIPE, split=SPLIT)` go to OUT_DIR/<key>.jsonl, where key is the first 16
hex digits of sha1("SPLIT\tRECIPE"); a failing recipe writes OUT_DIR/<key>.error instead.
Files that already exist are kept (delete OUT_DIR to regenerate).
"""
import hashlib
import json
import os
import sys
import traceback

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("UNITXT_ALLOW_UNVERIFIED_CODE", "True")


def offline_tree(hub_cache, dest):
    """Links <dest>/<org>/<name> to each dataset snapshot of an HF hub cache, the layout
    Unitxt reads through UNITXT_HF_OFFLINE_DATASETS_PATH."""
    for entry in sorted(os.listdir(hub_cache)):
        if not entry.startswith("datasets--"):
            continue
        org, name = entry[len("datasets--"):].split("--", 1)
        snap = os.path.join(hub_cache, entry, "snapshots")
        ref = os.path.join(hub_cache, entry, "refs", "main")
        rev = open(ref).read().strip() if os.path.exists(ref) else sorted(os.listdir(snap))[0]
        os.makedirs(os.path.join(dest, org), exist_ok=True)
        link = os.path.join(dest, org, name)
        if not os.path.islink(link):
            os.symlink(os.path.abspath(os.path.join(snap, rev)), link)


def skip_offline_retry_sleeps():
    """Offline, Unitxt retries the Hub's split listing with back-off sleeps (about 7 s per
    recipe); they wait for a network that is not there, so they are skipped. Everything else
    (including the jitter it draws from `random`) runs as it would."""
    import time

    import unitxt.utils

    class NoSleep:
        def __getattr__(self, name):
            return getattr(time, name)

        @staticmethod
        def sleep(_seconds):
            pass

    unitxt.utils.time = NoSleep()


def fresh_output_cache(root):
    """Gives each `load_dataset` call its own cache directory for the dataset it builds (under
    `root`, emptied before each call). Unitxt names that cache after the recipe alone, so
    loading a second split of a recipe already loaded in the same process fails inside
    `datasets` (a TypeError on a None path); a fresh directory per call avoids it. The loaders'
    caches are untouched."""
    import shutil

    import unitxt.dataset

    class FreshCacheDataset(unitxt.dataset.Dataset):
        def __init__(self, *args, **kwargs):
            shutil.rmtree(root, ignore_errors=True)
            kwargs.setdefault("cache_dir", root)
            super().__init__(*args, **kwargs)

    FreshCacheDataset.__name__ = unitxt.dataset.Dataset.__name__
    unitxt.dataset.Dataset = FreshCacheDataset


def media_bytes(o):
    """JSON for the `bytes` of media files (the `datasets` Image feature gives images as
    `{"path": None, "bytes": <file>}`): the file's kind, not its bytes, which the oracle test
    does not compare (an image Unitxt draws with matplotlib cannot be reproduced)."""
    if isinstance(o, bytes):
        kind = "png" if o.startswith(b"\x89PNG\r\n\x1a\n") else "jpeg" if o.startswith(b"\xff\xd8\xff") else "other"
        return {"$bytes": kind}
    raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")


def key(split, recipe):
    return hashlib.sha1(f"{split}\t{recipe}".encode()).hexdigest()[:16]


def main():
    recipes_file, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    if "UNITXT_HF_OFFLINE_DATASETS_PATH" not in os.environ:
        tree = os.path.join(out_dir, "hf-offline")
        offline_tree(os.environ["HF_HUB_CACHE"], tree)
        os.environ["UNITXT_HF_OFFLINE_DATASETS_PATH"] = tree
    from unitxt import load_dataset

    skip_offline_retry_sleeps()
    fresh_output_cache(os.path.join(out_dir, "datasets-cache"))

    for line in open(recipes_file, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        split, recipe = line.split("\t", 1)
        k = key(split, recipe)
        out = os.path.join(out_dir, k + ".jsonl")
        err = os.path.join(out_dir, k + ".error")
        if os.path.exists(out) or os.path.exists(err):
            continue
        try:
            ds = load_dataset(recipe, split=split, use_cache=False)
            tmp = out + ".tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                for row in ds:
                    f.write(json.dumps(row, ensure_ascii=False, default=media_bytes) + "\n")
            os.replace(tmp, out)
            print(f"oracle ok   {k} {recipe}", file=sys.stderr)
        except Exception:
            with open(err, "w", encoding="utf-8") as f:
                f.write(traceback.format_exc())
            print(f"oracle FAIL {k} {recipe}", file=sys.stderr)


if __name__ == "__main__":
    main()
