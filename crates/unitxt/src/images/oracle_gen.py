"""Writes image_cases.json: images made here with Pillow and what Unitxt's image operators give.

Usage (with a venv holding unitxt==1.26.10 and pillow==13.0.0, as scripts/test.sh installs):
  python crates/unitxt/src/images/oracle_gen.py

For each image: its file as base64, and Unitxt 1.26.10's DecodeImage (PIL format, mode, size),
ToImage's `format`, HashImage's digest, and ToRGB's pixels (MD5 of the RGB bytes and the bytes of
the first row, for the tolerance check of JPEG decoding).
"""
import base64
import hashlib
import io
import json
import os

from PIL import Image
from unitxt.image_operators import DecodeImage, HashImage, ToImage, ToRGB

HERE = os.path.dirname(os.path.abspath(__file__))


def made_images():
    w, h = 7, 5
    rgb = Image.new("RGB", (w, h))
    rgb.putdata([((x * 37) % 256, (y * 51) % 256, (x * y * 13) % 256) for y in range(h) for x in range(w)])
    rgba = Image.new("RGBA", (4, 3))
    rgba.putdata([(x * 60, y * 80, 200, (x + y) * 40) for y in range(3) for x in range(4)])
    gray = Image.new("L", (6, 4))
    gray.putdata([(x * 40 + y * 7) % 256 for y in range(4) for x in range(6)])
    la = Image.new("LA", (3, 3))
    la.putdata([(x * 90, 255 - y * 100) for y in range(3) for x in range(3)])
    big = Image.new("RGB", (16, 16))
    big.putdata([((x * 16) % 256, (y * 16) % 256, 128) for y in range(16) for x in range(16)])
    gray_big = Image.new("L", (8, 8))
    gray_big.putdata([(x * 32 + y) % 256 for y in range(8) for x in range(8)])
    out = []
    for name, img, fmt, kw in [
        ("png_rgb", rgb, "PNG", {}),
        ("png_rgba", rgba, "PNG", {}),
        ("png_l", gray, "PNG", {}),
        ("png_la", la, "PNG", {}),
        ("jpeg_rgb_444", big, "JPEG", {"quality": 95, "subsampling": 0}),
        ("jpeg_l", gray_big, "JPEG", {"quality": 90}),
    ]:
        buf = io.BytesIO()
        img.save(buf, format=fmt, **kw)
        out.append((name, buf.getvalue()))
    return out


def main():
    cases = []
    for name, data in made_images():
        b64 = base64.b64encode(data).decode()
        decoded = DecodeImage(field="x").process_value(b64)
        as_image = ToImage(field="x").process_instance_value(decoded, {})
        hashed = HashImage(field="x").process_value(decoded)
        rgb = ToRGB(field="x").process_value({"image": decoded, "format": as_image["format"]})["image"]
        raw = rgb.tobytes()
        cases.append({
            "name": name, "base64": b64, "pil_format": decoded.format, "mode": decoded.mode, "size": list(decoded.size),
            "to_image_format": as_image["format"], "hash_image": hashed, "rgb_md5": hashlib.md5(raw).hexdigest(),
            "rgb_bytes": list(raw), "rgb_mode": rgb.mode,
        })
    with open(os.path.join(HERE, "image_cases.json"), "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
