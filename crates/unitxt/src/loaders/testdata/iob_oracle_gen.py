# Writes iob_oracle.json: the rows Unitxt 1.26.10's LoadIOB gives for sample.iob2 (with and
# without fix_tags, and with a loader limit), and whether it fails on bad_id.iob2.
# Needs `pip install conllu`. Run from this folder: ../../../../../.venv/bin/python iob_oracle_gen.py
import json
import os

from unitxt.loaders import LoadIOB

here = os.path.dirname(os.path.abspath(__file__))
out = {}
for name, kwargs in [("default", {}), ("no_fix", {"fix_tags": False}), ("limit", {"loader_limit": 2})]:
    loader = LoadIOB(files={"test": os.path.join(here, "sample.iob2")}, data_classification_policy=["public"], **kwargs)
    out[name] = list(loader()["test"])
try:
    list(LoadIOB(files={"test": os.path.join(here, "bad_id.iob2")}, data_classification_policy=["public"])()["test"])
    out["bad_id"] = "ok"
except Exception as e:  # noqa: BLE001
    out["bad_id"] = type(e).__name__
with open(os.path.join(here, "iob_oracle.json"), "w", encoding="utf-8") as f:
    json.dump(out, f, ensure_ascii=False, indent=1)
