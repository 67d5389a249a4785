"""Writes augment_cases.json: Unitxt 1.26.10's gray_scale and grid_lines on images made with Pillow.

Usage (with a venv holding unitxt==1.26.10 and pillow==13.0.0):
  python crates/unitxt/src/augmentors/image/oracle_gen.py

Each case: the image file (base64 PNG, from crates/unitxt/src/images/oracle_gen.py's images), the
augmentor's arguments, and the pixels Unitxt gives (mode, size, bytes) or its error type.
"""
import base64
import io
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "images"))

from oracle_gen import made_images  # noqa: E402
from PIL import Image  # noqa: E402
from unitxt.image_operators import GrayScale, GridLines  # noqa: E402

AUGMENTORS = [
    ("gray_scale", {}, GrayScale),
    ("grid_lines", {}, GridLines),
    ("grid_lines", {"num_lines": 2, "line_thickness": 2, "line_color": [255, 0, 10]}, GridLines),
    ("grid_lines", {"num_lines": 3, "line_thickness": 1, "line_color": [0, 0, 0]}, GridLines),
]


def main():
    cases = []
    for name, data in made_images():
        if not name.startswith("png"):
            continue
        for type_name, args, cls in AUGMENTORS:
            op = cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in args.items()})
            op.prepare()
            case = {"image": name, "base64": base64.b64encode(data).decode(), "type": type_name, "args": args}
            try:
                out = op.process_value({"image": Image.open(io.BytesIO(data)), "format": "PNG"})
                img = out["image"]
                case.update(mode=img.mode, size=list(img.size), bytes=list(img.tobytes()), format=out["format"])
            except Exception as e:  # noqa: BLE001 - the error is the expected outcome
                case["error"] = type(e).__name__
            cases.append(case)
    with open(os.path.join(HERE, "augment_cases.json"), "w") as f:
        json.dump(cases, f)
        f.write("\n")
    print(f"{len(cases)} cases", file=sys.stderr)


if __name__ == "__main__":
    main()
