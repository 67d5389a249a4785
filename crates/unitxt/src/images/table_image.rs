//! A table drawn as an image, for `serialize_table_as_image` (Unitxt's `SerializeTableAsImage`).
//!
//! Unitxt builds a pandas `DataFrame` of the table and draws it with `pandas.plotting.table` in
//! matplotlib: a header row of the column names, then one row per table row led by its index
//! label (0, 1, ...), each value centered in its cell as `str()` of what the frame holds, cells
//! outlined. The same structure is drawn here, with the same cell texts ([`cell_texts`]), in
//! black on white, with an 8x8 bitmap font (`font8x8`) scaled twice: the pixels (font, sizes,
//! margins) differ from matplotlib's, which cannot be reproduced without matplotlib's font
//! rasterizer.

use font8x8::UnicodeFonts as _;

use crate::error::{Error, Result};
use crate::py::repr::{float_repr, str as py_str};
use crate::value::Value;

/// The dtype pandas 3 gives a column of Python values (as `pd.DataFrame(rows)` infers it).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dtype {
    /// All integers: `int64`.
    Int,
    /// Numbers (at least one float, or integers with missing values): `float64`, missing as NaN.
    Float,
    /// All booleans: `bool`.
    Bool,
    /// Strings with missing values: pandas' string dtype, missing as NaN.
    Str,
    /// Anything else (mixed types, lists, all missing): `object`, values kept as they are.
    Object,
}

fn dtype(column: &[Option<&Value>]) -> Dtype {
    let present: Vec<&Value> = column.iter().map(|v| v.unwrap_or(&Value::Null)).collect();
    let all = |f: &dyn Fn(&Value) -> bool| present.iter().all(|v| f(v));
    let any = |f: &dyn Fn(&Value) -> bool| present.iter().any(|v| f(v));
    let is_num = |v: &Value| matches!(v, Value::Number(_));
    if !present.is_empty() && all(&|v| v.is_i64() || v.is_u64()) {
        Dtype::Int
    } else if all(&|v| is_num(v) || v.is_null()) && any(&is_num) {
        Dtype::Float
    } else if !present.is_empty() && all(&|v| v.is_boolean()) {
        Dtype::Bool
    } else if all(&|v| v.is_string() || v.is_null()) && any(&|v| v.is_string()) {
        Dtype::Str
    } else {
        Dtype::Object
    }
}

/// A float as numpy's `str()` writes it (Python's `repr`; `nan`, `inf`).
fn float_text(f: f64) -> String {
    if f.is_nan() {
        "nan".into()
    } else if f.is_infinite() {
        if f > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        float_repr(f)
    }
}

/// The column names Unitxt gives the frame: a name seen `n` times before is suffixed `_n`,
/// then a name still repeated (pandas' `duplicated()`) is suffixed with its position `_i`.
pub fn column_names(header: &[Value]) -> Vec<String> {
    let first: Vec<String> = header
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let n = header[..i].iter().filter(|x| crate::py::ops::py_eq(x, h)).count();
            if n > 0 { format!("{}_{n}", py_str(h)) } else { py_str(h) }
        })
        .collect();
    first.iter().enumerate().map(|(i, n)| if first[..i].contains(n) { format!("{n}_{i}") } else { n.clone() }).collect()
}

/// A row of the drawn table: its index label and its cells' texts.
pub type LabeledRow = (String, Vec<String>);

/// The texts of the drawn table: the column names ([`column_names`]) and, per row, its index
/// label and the `str()` of each value of `pandas.DataFrame(rows, columns=names).values` (what
/// `pandas.plotting.table` puts in the cells): a frame of integer columns keeps integers; one
/// of integer and float columns holds floats (`1.0`, missing values `nan`); otherwise each
/// column keeps its own dtype (integers, floats, booleans, strings, or objects), string
/// columns' missing values being `nan` and other missing values (`None`) an empty cell. A row
/// shorter than the header is padded with missing values (pandas does, with a deprecation
/// warning); a longer one is an error, as in pandas.
pub fn cell_texts(header: &[Value], rows: &[Vec<Value>]) -> Result<(Vec<String>, Vec<LabeledRow>)> {
    let names = column_names(header);
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    if width > names.len() {
        return Err(Error::invalid(format!("{} columns passed, passed data had {width} columns", names.len())));
    }
    let columns: Vec<Vec<Option<&Value>>> = (0..names.len()).map(|j| rows.iter().map(|r| r.get(j)).collect()).collect();
    let dtypes: Vec<Dtype> = columns.iter().map(|c| dtype(c)).collect();
    // The frame's `.values`: one numpy dtype for all columns when they are all numeric (or all
    // boolean), else objects, each column's values as its dtype holds them.
    let common = if dtypes.iter().all(|d| *d == Dtype::Int) {
        Dtype::Int
    } else if dtypes.iter().all(|d| matches!(d, Dtype::Int | Dtype::Float)) {
        Dtype::Float
    } else if dtypes.iter().all(|d| *d == Dtype::Bool) {
        Dtype::Bool
    } else {
        Dtype::Object
    };
    let text = |v: Option<&Value>, d: Dtype| -> String {
        let as_float = |v: Option<&Value>| v.and_then(|v| v.as_f64()).map_or_else(|| "nan".to_string(), float_text);
        match (common, d) {
            (Dtype::Float, _) | (_, Dtype::Float) => as_float(v),
            (_, Dtype::Str) => v.and_then(|v| v.as_str()).map_or_else(|| "nan".to_string(), str::to_string),
            _ => match v {
                None | Some(Value::Null) => String::new(),
                Some(v) => py_str(v),
            },
        }
    };
    let body = rows
        .iter()
        .enumerate()
        .map(|(i, _)| (i.to_string(), columns.iter().zip(&dtypes).map(|(c, d)| text(c[i], *d)).collect()))
        .collect();
    Ok((names, body))
}

/// Glyph scale: each font pixel is this many image pixels.
const SCALE: u32 = 2;
/// A glyph's advance and height, in image pixels.
const GLYPH: u32 = 8 * SCALE;
/// Space between lines of a cell's text.
const LINE_GAP: u32 = 4;
/// Padding left and right of a cell's text (the index column: [`LABEL_PAD`]).
const PAD_X: u32 = 10;
/// Padding of the index labels, which sit at their cell's left as matplotlib's row labels do.
const LABEL_PAD: u32 = 4;
/// Padding above and below a cell's text.
const PAD_Y: u32 = 10;
/// Width of the cells' outlines.
const LINE: u32 = 2;
/// The white border around the table.
const MARGIN: u32 = 20;
/// Images larger than this many pixels are refused rather than drawn.
const MAX_PIXELS: u64 = 50_000_000;

const WHITE: image::Rgba<u8> = image::Rgba([255, 255, 255, 255]);
const BLACK: image::Rgba<u8> = image::Rgba([0, 0, 0, 255]);

/// The 8x8 glyph of `c` (row by row, bit `i` of a row the `i`-th pixel from the left); `None`
/// when the font has none.
fn glyph(c: char) -> Option<[u8; 8]> {
    font8x8::BASIC_FONTS
        .get(c)
        .or_else(|| font8x8::LATIN_FONTS.get(c))
        .or_else(|| font8x8::GREEK_FONTS.get(c))
        .or_else(|| font8x8::BOX_FONTS.get(c))
        .or_else(|| font8x8::BLOCK_FONTS.get(c))
        .or_else(|| font8x8::MISC_FONTS.get(c))
        .or_else(|| font8x8::HIRAGANA_FONTS.get(c))
}

/// The width in pixels of the widest line of `text`.
fn text_width(text: &str) -> u64 {
    text.split('\n').map(|l| l.chars().count() as u64 * u64::from(GLYPH)).max().unwrap_or(0)
}

/// The height in pixels of the lines of `text`.
fn text_height(text: &str) -> u64 {
    let lines = text.split('\n').count() as u64;
    lines * u64::from(GLYPH) + (lines - 1) * u64::from(LINE_GAP)
}

fn fill(img: &mut image::RgbaImage, x: u32, y: u32, w: u32, h: u32, color: image::Rgba<u8>) {
    for yy in y..(y + h).min(img.height()) {
        for xx in x..(x + w).min(img.width()) {
            img.put_pixel(xx, yy, color);
        }
    }
}

/// Draws `text` with its top left at (`x`, `y`), each line centered within `width` when
/// `center`, else left aligned. A character without a glyph is drawn as an empty box.
fn draw_text(img: &mut image::RgbaImage, text: &str, x: u32, y: u32, width: u32, center: bool) {
    for (n, line) in text.split('\n').enumerate() {
        let lw = line.chars().count() as u32 * GLYPH;
        let mut cx = if center { x + width.saturating_sub(lw) / 2 } else { x };
        let cy = y + n as u32 * (GLYPH + LINE_GAP);
        for c in line.chars() {
            match glyph(c) {
                Some(rows) => {
                    for (gy, bits) in rows.iter().enumerate() {
                        for gx in 0..8 {
                            if bits & (1 << gx) != 0 {
                                fill(img, cx + gx * SCALE, cy + gy as u32 * SCALE, SCALE, SCALE, BLACK);
                            }
                        }
                    }
                }
                None => {
                    let (bx, by, s) = (cx + SCALE, cy + SCALE, GLYPH - 2 * SCALE);
                    fill(img, bx, by, s, 1, BLACK);
                    fill(img, bx, by + s - 1, s, 1, BLACK);
                    fill(img, bx, by, 1, s, BLACK);
                    fill(img, bx + s - 1, by, 1, s, BLACK);
                }
            }
            cx += GLYPH;
        }
    }
}

/// Outlines the cell at (`x`, `y`) of `w` by `h` pixels (its right and bottom lines lie just
/// outside, where the next cell's left and top lines are).
fn outline(img: &mut image::RgbaImage, x: u32, y: u32, w: u32, h: u32) {
    fill(img, x, y, w + LINE, LINE, BLACK);
    fill(img, x, y + h, w + LINE, LINE, BLACK);
    fill(img, x, y, LINE, h + LINE, BLACK);
    fill(img, x + w, y, LINE, h + LINE, BLACK);
}

/// The table `header` + `rows` drawn as Unitxt's `SerializeTableAsImage` lays it out (see the
/// module's doc), as an RGBA PNG file's bytes. Each column is as wide as its widest text, each
/// row as high as its tallest cell (texts with newlines take several lines). Errors: a row longer
/// than the header (see [`cell_texts`]), and a table whose image would exceed 50 million pixels.
pub fn table_png(header: &[Value], rows: &[Vec<Value>]) -> Result<Vec<u8>> {
    let (names, body) = cell_texts(header, rows)?;
    // Sizes in u64 first: texts may be long enough to overflow u32 pixel counts.
    let label_w = body.iter().map(|(l, _)| text_width(l)).max().unwrap_or(0) + u64::from(2 * LABEL_PAD);
    let col_w: Vec<u64> = (0..names.len())
        .map(|j| body.iter().map(|(_, r)| text_width(&r[j])).chain([text_width(&names[j])]).max().unwrap_or(0) + u64::from(2 * PAD_X))
        .collect();
    let head_h = names.iter().map(|n| text_height(n)).max().unwrap_or(0) + u64::from(2 * PAD_Y);
    let row_h: Vec<u64> =
        body.iter().map(|(l, r)| r.iter().map(|t| text_height(t)).chain([text_height(l)]).max().unwrap_or(0) + u64::from(2 * PAD_Y)).collect();
    let width = u64::from(2 * MARGIN + LINE) + label_w + col_w.iter().sum::<u64>();
    let height = u64::from(2 * MARGIN + LINE) + head_h + row_h.iter().sum::<u64>();
    if width.saturating_mul(height) > MAX_PIXELS {
        return Err(Error::invalid(format!("serialize_table_as_image: the table's image would be {width}x{height} pixels, too large")));
    }
    // Every size now fits in u32 (the image has at most MAX_PIXELS pixels).
    let (label_w, head_h) = (label_w as u32, head_h as u32);
    let col_w: Vec<u32> = col_w.into_iter().map(|w| w as u32).collect();
    let row_h: Vec<u32> = row_h.into_iter().map(|h| h as u32).collect();
    let th = |t: &str| text_height(t) as u32;
    let mut img = image::RgbaImage::from_pixel(width as u32, height as u32, WHITE);
    // Column names over the value columns (none over the index labels, as in matplotlib).
    let mut x = MARGIN + label_w;
    for (name, &w) in names.iter().zip(&col_w) {
        outline(&mut img, x, MARGIN, w, head_h);
        draw_text(&mut img, name, x, MARGIN + (head_h - th(name)) / 2, w, true);
        x += w;
    }
    let mut y = MARGIN + head_h;
    for ((label, cells), &h) in body.iter().zip(&row_h) {
        outline(&mut img, MARGIN, y, label_w, h);
        draw_text(&mut img, label, MARGIN + LABEL_PAD, y + (h - th(label)) / 2, label_w, false);
        let mut x = MARGIN + label_w;
        for (text, &w) in cells.iter().zip(&col_w) {
            outline(&mut img, x, y, w, h);
            draw_text(&mut img, text, x, y + (h - th(text)) / 2, w, true);
            x += w;
        }
        y += h;
    }
    let mut bytes = Vec::new();
    image::DynamicImage::ImageRgba8(img)
        .write_to(&mut std::io::Cursor::new(&mut bytes), image::ImageFormat::Png)
        .map_err(|e| Error::invalid(format!("serialize_table_as_image: cannot encode the image: {e}")))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests;
