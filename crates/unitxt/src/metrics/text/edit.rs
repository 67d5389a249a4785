//! Edit-distance metrics: Unitxt's `CharEditDistance` / `CharEditDistanceAccuracy` (Levenshtein
//! over code points, whitespace removed, like the `editdistance` package), `ANLS`, and WER as
//! computed by HF `evaluate`'s `wer` script with `jiwer`'s default word transform.

use super::{levenshtein, py_split, py_strip};

/// Unitxt `CharEditDistance`: the edit distance between prediction and reference once all
/// whitespace is removed; with `accuracy`, `1 - distance / max_length`. 0.0 when both are empty.
pub fn char_edit_distance(prediction: &str, reference: &str, accuracy: bool) -> f64 {
    let p: Vec<char> = py_split(prediction).concat().chars().collect();
    let r: Vec<char> = py_split(reference).concat().chars().collect();
    let max_len = p.len().max(r.len());
    if max_len == 0 {
        return 0.0;
    }
    let d = levenshtein(&r, &p) as f64;
    if accuracy {
        1.0 - d / max_len as f64
    } else {
        d
    }
}

/// Unitxt `ANLS.compute`: 1 minus the smallest normalized Levenshtein distance to a reference
/// (texts stripped, lowercased and whitespace-collapsed; the length is the larger uppercased
/// length of the raw texts), set to 0 below `threshold`. None when there is no reference.
pub fn anls(prediction: &str, references: &[String], threshold: f64) -> Option<f64> {
    let prep = |t: &str| -> (Vec<char>, usize) {
        (
            py_split(&py_strip(t).to_lowercase())
                .join(" ")
                .chars()
                .collect(),
            t.to_uppercase().chars().count(),
        )
    };
    let (pp, pl) = prep(prediction);
    let min = references
        .iter()
        .map(|r| {
            let (rp, rl) = prep(r);
            let len = rl.max(pl);
            if len == 0 {
                0.0
            } else {
                levenshtein(&rp, &pp) as f64 / len as f64
            }
        })
        .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.min(x))))?;
    let score = 1.0 - min;
    Some(if score < threshold { 0.0 } else { score })
}

/// jiwer's default WER transform: collapse whitespace runs of two or more characters to one
/// space, strip, split on single spaces (a lone tab or newline stays inside a word).
pub fn jiwer_words(s: &str) -> Vec<String> {
    let c: Vec<char> = s.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < c.len() {
        if super::py_is_space(c[i]) && i + 1 < c.len() && super::py_is_space(c[i + 1]) {
            while i < c.len() && super::py_is_space(c[i]) {
                i += 1;
            }
            out.push(' ');
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    py_strip(&out)
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Per-instance WER statistics: (errors = substitutions + deletions + insertions, reference
/// words = substitutions + deletions + hits).
pub fn wer_stats(prediction: &str, reference: &str) -> (u64, u64) {
    let p = jiwer_words(prediction);
    let r = jiwer_words(reference);
    (levenshtein(&r, &p) as u64, r.len() as u64)
}

/// Corpus WER (`evaluate`'s `wer`, `concatenate_texts=False`): summed errors over summed
/// reference words. None when there are no reference words (Python divides by zero).
pub fn wer_reduce(stats: &[(u64, u64)]) -> Option<f64> {
    let e: u64 = stats.iter().map(|s| s.0).sum();
    let t: u64 = stats.iter().map(|s| s.1).sum();
    (t > 0).then(|| e as f64 / t as f64)
}
