"""Writes oldify_cases.json: Unitxt 1.26.10's Oldify without grain, and the Pillow operations it
is made of, on images made with Pillow and on a photograph.

Usage (with a venv holding unitxt==1.26.10, pillow==13.0.0, numpy and matplotlib==3.11.2, whose
sample data has the photograph):
  python crates/unitxt/src/augmentors/image/oldify_gen.py

Images: the PNGs of crates/unitxt/src/images/oracle_gen.py (RGB, RGBA, L, LA), gray images of
widths 3 and 1 (the only gray ones numpy can broadcast the tint onto), a 1x1 RGB image, 33x21
RGB noise, and two crops of matplotlib's sample photograph of Grace Hopper (a 64x48 RGB
downscale and a 40x30 full-resolution crop). Cases:
  - `oldify`: Oldify(noise_strength=0, tint_strength=...) (the grain is drawn from numpy's
    unseeded generator; with strength 0 it is zero), or the error Unitxt raises;
  - `blur`: image.filter(ImageFilter.GaussianBlur(radius)) for several radii;
  - `contrast` / `brightness`: ImageEnhance.Contrast / Brightness(image).enhance(factor).
The file holds {"images": {name: base64 PNG}, "cases": [...]}. Each result: mode, size, the MD5 of its bytes (`tobytes()`) and, for small results, the bytes
(base64).
"""
import base64
import hashlib
import io
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "images"))

import matplotlib.cbook  # noqa: E402
import numpy as np  # noqa: E402
from oracle_gen import made_images  # noqa: E402
from PIL import Image, ImageEnhance, ImageFilter  # noqa: E402
from unitxt.image_operators import Oldify  # noqa: E402


def png(img):
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def images():
    out = [(n, d) for n, d in made_images() if n.startswith("png")]
    g3 = Image.new("L", (3, 5))
    g3.putdata([(x * 70 + y * 31) % 256 for y in range(5) for x in range(3)])
    g1 = Image.new("L", (1, 4))
    g1.putdata([0, 90, 200, 255])
    one = Image.new("RGB", (1, 1), (200, 10, 99))
    rng = np.random.RandomState(0)
    noise = Image.fromarray(rng.randint(0, 256, (21, 33, 3), dtype=np.uint8))
    photo = Image.open(matplotlib.cbook.get_sample_data("grace_hopper.jpg", asfileobj=False)).convert("RGB")
    small = photo.resize((64, 48 * 600 // 512), Image.Resampling.BILINEAR).crop((0, 0, 64, 48))
    crop = photo.crop((200, 150, 240, 180))
    out += [("png_l_w3", png(g3)), ("png_l_w1", png(g1)), ("png_rgb_1x1", png(one)), ("png_rgb_noise", png(noise)),
            ("photo_64x48", png(small)), ("photo_crop_40x30", png(crop))]
    return out


def result(img):
    raw = img.tobytes()
    r = {"mode": img.mode, "size": list(img.size), "md5": hashlib.md5(raw).hexdigest()}
    if len(raw) <= 1200:
        r["pixels"] = base64.b64encode(raw).decode()
    return r


def main():
    cases = []
    files = {}
    for name, data in images():
        files[name] = base64.b64encode(data).decode()

        def add(op, args, fn):
            case = {"image": name, "op": op, "args": args}
            try:
                case.update(result(fn(Image.open(io.BytesIO(data)))))
            except Exception as e:  # noqa: BLE001 - the error is the expected outcome
                case["error"] = type(e).__name__
            cases.append(case)

        for tint in [0.4, 0.0, 1.0, 0.25, 1.5]:
            def oldify(img, tint=tint):
                op = Oldify(noise_strength=0, tint_strength=tint)
                op.prepare()
                return op.process_value({"image": img, "format": "PNG"})["image"]
            add("oldify", {"noise_strength": 0, "tint_strength": tint}, oldify)
        for radius in [1, 0.5, 2, 3.7, 12]:
            add("blur", {"radius": radius}, lambda img, r=radius: img.filter(ImageFilter.GaussianBlur(radius=r)))
        for factor in [0.6, 0.0, 1.7]:
            add("contrast", {"factor": factor}, lambda img, f=factor: ImageEnhance.Contrast(img).enhance(f))
        for factor in [1.2, 0.5, 3.0]:
            add("brightness", {"factor": factor}, lambda img, f=factor: ImageEnhance.Brightness(img).enhance(f))
    with open(os.path.join(HERE, "oldify_cases.json"), "w") as f:
        json.dump({"images": files, "cases": cases}, f, indent=0)
        f.write("\n")
    print(f"{len(cases)} cases", file=sys.stderr)


if __name__ == "__main__":
    main()
