//! BLEU: sacrebleu 2.x (`BLEU.sentence_score` statistics and `BLEU.compute_bleu`, as used by
//! Unitxt's `NormalizedSacrebleu` map/reduce) and the Google NMT `compute_bleu` of HF
//! `evaluate`'s `bleu` script (with its 13a tokenizer), as per-instance sums plus a reduce.

use std::collections::HashMap;
use std::sync::OnceLock;

use fancy_regex::Regex;

use crate::error::{Error, Result};

use super::py_split;

fn re(
    cell: &'static OnceLock<Vec<(Regex, &'static str)>>,
    pats: &[(&str, &'static str)],
) -> &'static [(Regex, &'static str)] {
    cell.get_or_init(|| {
        pats.iter()
            .map(|(p, r)| (Regex::new(p).expect("static regex"), *r))
            .collect()
    })
}

fn apply(rules: &[(Regex, &str)], mut line: String) -> String {
    for (r, rep) in rules {
        line = r.replace_all(&line, *rep).into_owned();
    }
    py_split(&line).join(" ")
}

/// sacrebleu's `13a` tokenizer (mteval-v13a): drop `<skipped>`, join `-\n`, unescape four HTML
/// entities, then split punctuation and symbols off (periods and commas only next to non-digits).
pub fn tokenize_13a(line: &str) -> String {
    static RULES: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    let rules = re(
        &RULES,
        &[
            (r"([\{-\~\[-\` -\&\(-\+\:-\@\/])", " ${1} "),
            (r"([^0-9])([\.,])", "${1} ${2} "),
            (r"([\.,])([^0-9])", " ${1} ${2}"),
            (r"([0-9])(-)", "${1} ${2} "),
        ],
    );
    let mut l = line
        .replace("<skipped>", "")
        .replace("-\n", "")
        .replace('\n', " ");
    if l.contains('&') {
        l = l
            .replace("&quot;", "\"")
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">");
    }
    apply(rules, format!(" {l} "))
}

/// sacrebleu's `intl` tokenizer: Unicode punctuation split off unless next to a number, symbols
/// always split off.
pub fn tokenize_intl(line: &str) -> String {
    static RULES: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    let rules = re(
        &RULES,
        &[
            (r"(\P{N})(\p{P})", "${1} ${2} "),
            (r"(\p{P})(\P{N})", " ${1} ${2}"),
            (r"(\p{S})", " ${1} "),
        ],
    );
    apply(rules, line.to_string())
}

/// sacrebleu's `none` tokenizer: the line unchanged.
pub fn tokenize_none(line: &str) -> String {
    line.to_string()
}

/// Tokenizes with a sacrebleu tokenizer by name (`None` → `13a`). `zh`, `ja-mecab`, `ko-mecab`,
/// `char`, `flores*` and `spm` are not implemented and return an `Unsupported` error.
pub fn sacrebleu_tokenize(name: Option<&str>, line: &str) -> Result<String> {
    match name {
        None | Some("13a") => Ok(tokenize_13a(line)),
        Some("intl") => Ok(tokenize_intl(line)),
        Some("none") => Ok(tokenize_none(line)),
        Some(other) => Err(Error::unsupported(format!(
            "sacrebleu tokenizer {other:?} is not implemented"
        ))),
    }
}

fn ngrams(tokens: &[&str], max_order: usize) -> HashMap<Vec<String>, usize> {
    let mut m = HashMap::new();
    for n in 1..=max_order {
        if tokens.len() >= n {
            for w in tokens.windows(n) {
                *m.entry(w.iter().map(|s| s.to_string()).collect())
                    .or_insert(0) += 1;
            }
        }
    }
    m
}

/// sacrebleu sufficient statistics of one segment (or their sum over a corpus).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SacreBleuStats {
    /// Clipped n-gram matches per order.
    pub counts: Vec<u64>,
    /// Hypothesis n-grams per order.
    pub totals: Vec<u64>,
    /// Hypothesis length in tokens.
    pub sys_len: u64,
    /// The closest reference length (shorter one on ties).
    pub ref_len: u64,
}

/// Options of sacrebleu's `BLEU` object relevant to the statistics.
#[derive(Debug, Clone)]
pub struct SacreBleuOptions {
    /// Lowercase before tokenizing.
    pub lowercase: bool,
    /// Tokenizer name; `None` is `13a`.
    pub tokenize: Option<String>,
    /// Maximum n-gram order (4).
    pub max_ngram_order: usize,
    /// `exp`, `floor`, `add-k` or `none`.
    pub smooth_method: String,
    /// Smoothing value; `None` takes sacrebleu's default (0.1 floor, 1 add-k).
    pub smooth_value: Option<f64>,
    /// Stop at the last order with any hypothesis n-gram.
    pub effective_order: bool,
}

impl Default for SacreBleuOptions {
    fn default() -> Self {
        SacreBleuOptions {
            lowercase: false,
            tokenize: None,
            max_ngram_order: 4,
            smooth_method: "exp".into(),
            smooth_value: None,
            effective_order: true,
        }
    }
}

/// sacrebleu `BLEU._compute_segment_statistics` after `_preprocess_segment` (optional lowercasing,
/// right-strip, tokenization) of the hypothesis and each reference. Errors on an unsupported
/// tokenizer or no references.
pub fn sacrebleu_stats(
    hypothesis: &str,
    references: &[String],
    opts: &SacreBleuOptions,
) -> Result<SacreBleuStats> {
    if references.is_empty() {
        return Err(Error::invalid("sacrebleu needs at least one reference"));
    }
    let prep = |s: &str| -> Result<String> {
        let s = if opts.lowercase {
            s.to_lowercase()
        } else {
            s.to_string()
        };
        sacrebleu_tokenize(
            opts.tokenize.as_deref(),
            s.trim_end_matches(super::py_is_space),
        )
    };
    let max = opts.max_ngram_order;
    let mut ref_ngrams: HashMap<Vec<String>, usize> = HashMap::new();
    let mut ref_lens = Vec::new();
    for r in references {
        let t = prep(r)?;
        let toks = py_split(&t);
        ref_lens.push(toks.len() as u64);
        for (g, c) in ngrams(&toks, max) {
            let e = ref_ngrams.entry(g).or_insert(0);
            *e = (*e).max(c);
        }
    }
    let h = prep(hypothesis)?;
    let htoks = py_split(&h);
    let sys_len = htoks.len() as u64;
    let mut closest: Option<(u64, u64)> = None;
    for &rl in &ref_lens {
        let diff = sys_len.abs_diff(rl);
        closest = match closest {
            None => Some((diff, rl)),
            Some((d, l)) if diff < d || (diff == d && rl < l) => Some((diff, rl)),
            keep => keep,
        };
    }
    let mut counts = vec![0u64; max];
    let mut totals = vec![0u64; max];
    for (g, c) in ngrams(&htoks, max) {
        let n = g.len() - 1;
        totals[n] += c as u64;
        if let Some(rc) = ref_ngrams.get(&g) {
            counts[n] += c.min(*rc) as u64;
        }
    }
    Ok(SacreBleuStats {
        counts,
        totals,
        sys_len,
        ref_len: closest.map(|c| c.1).unwrap_or(0),
    })
}

/// Element-wise sum of statistics (the corpus statistics of a set of segments).
pub fn sum_stats<'a>(
    stats: impl IntoIterator<Item = &'a SacreBleuStats>,
    max_order: usize,
) -> SacreBleuStats {
    let mut out = SacreBleuStats {
        counts: vec![0; max_order],
        totals: vec![0; max_order],
        sys_len: 0,
        ref_len: 0,
    };
    for s in stats {
        for i in 0..max_order.min(s.counts.len()).min(s.totals.len()) {
            out.counts[i] += s.counts[i];
            out.totals[i] += s.totals[i];
        }
        out.sys_len += s.sys_len;
        out.ref_len += s.ref_len;
    }
    out
}

/// The result of sacrebleu's `compute_bleu` (scores on the 0..100 scale).
#[derive(Debug, Clone, PartialEq)]
pub struct BleuScore {
    /// BLEU, 0..100.
    pub score: f64,
    /// Per-order precisions, 0..100.
    pub precisions: Vec<f64>,
    /// Brevity penalty.
    pub bp: f64,
}

/// sacrebleu `BLEU.compute_bleu` on (summed) statistics. Errors on an unknown smoothing method.
pub fn sacrebleu_compute(stats: &SacreBleuStats, opts: &SacreBleuOptions) -> Result<BleuScore> {
    let max = opts.max_ngram_order;
    let smooth_value = match (opts.smooth_method.as_str(), opts.smooth_value) {
        (_, Some(v)) => v,
        ("floor", None) => 0.1,
        ("add-k", None) => 1.0,
        ("exp" | "none", None) => 0.0,
        (m, _) => return Err(Error::invalid(format!("Unknown smooth_method {m:?}"))),
    };
    if !matches!(
        opts.smooth_method.as_str(),
        "floor" | "add-k" | "exp" | "none"
    ) {
        return Err(Error::invalid(format!(
            "Unknown smooth_method {:?}",
            opts.smooth_method
        )));
    }
    let (sys, rl) = (stats.sys_len as f64, stats.ref_len as f64);
    let mut bp = 1.0;
    if stats.sys_len < stats.ref_len {
        bp = if stats.sys_len > 0 {
            (1.0 - rl / sys).exp()
        } else {
            0.0
        };
    }
    let mut precisions = vec![0.0; max];
    let mut correct: Vec<f64> = (0..max)
        .map(|i| stats.counts.get(i).copied().unwrap_or(0) as f64)
        .collect();
    let mut total: Vec<f64> = (0..max)
        .map(|i| stats.totals.get(i).copied().unwrap_or(0) as f64)
        .collect();
    if correct.iter().all(|c| *c == 0.0) {
        return Ok(BleuScore {
            score: 0.0,
            precisions,
            bp,
        });
    }
    let mut smooth_mteval = 1.0;
    let mut eff_order = max;
    for n in 1..=max {
        if opts.smooth_method == "add-k" && n > 1 {
            correct[n - 1] += smooth_value;
            total[n - 1] += smooth_value;
        }
        if total[n - 1] == 0.0 {
            break;
        }
        if opts.effective_order {
            eff_order = n;
        }
        if correct[n - 1] == 0.0 {
            if opts.smooth_method == "exp" {
                smooth_mteval *= 2.0;
                precisions[n - 1] = 100.0 / (smooth_mteval * total[n - 1]);
            } else if opts.smooth_method == "floor" {
                precisions[n - 1] = 100.0 * smooth_value / total[n - 1];
            }
        } else {
            precisions[n - 1] = 100.0 * correct[n - 1] / total[n - 1];
        }
    }
    let log = |p: f64| if p == 0.0 { -9999999999.0 } else { p.ln() };
    let s: f64 = precisions[..eff_order].iter().map(|p| log(*p)).sum();
    Ok(BleuScore {
        score: bp * (s / eff_order as f64).exp(),
        precisions,
        bp,
    })
}

/// Per-instance statistics of the Google NMT BLEU (`evaluate`'s `bleu`): clipped matches and
/// possible matches per order, the shortest reference length and the translation length.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NmtBleuStats {
    /// Clipped n-gram matches per order.
    pub matches: Vec<u64>,
    /// Translation n-grams per order.
    pub possible: Vec<u64>,
    /// Length of the shortest reference.
    pub reference_length: u64,
    /// Length of the translation.
    pub translation_length: u64,
}

/// Statistics of one prediction against its references, both tokenized with the 13a tokenizer
/// (references' n-gram counts merged by maximum). Errors on no references.
pub fn nmt_bleu_stats(
    prediction: &str,
    references: &[String],
    max_order: usize,
) -> Result<NmtBleuStats> {
    if references.is_empty() {
        return Err(Error::invalid("bleu needs at least one reference"));
    }
    let mut merged: HashMap<Vec<String>, usize> = HashMap::new();
    let mut min_len = u64::MAX;
    for r in references {
        let t = tokenize_13a(r);
        let toks = py_split(&t);
        min_len = min_len.min(toks.len() as u64);
        for (g, c) in ngrams(&toks, max_order) {
            let e = merged.entry(g).or_insert(0);
            *e = (*e).max(c);
        }
    }
    let t = tokenize_13a(prediction);
    let toks = py_split(&t);
    let mut matches = vec![0u64; max_order];
    for (g, c) in ngrams(&toks, max_order) {
        if let Some(rc) = merged.get(&g) {
            matches[g.len() - 1] += c.min(*rc) as u64;
        }
    }
    let possible = (1..=max_order)
        .map(|o| (toks.len() + 1).saturating_sub(o) as u64)
        .collect();
    Ok(NmtBleuStats {
        matches,
        possible,
        reference_length: min_len,
        translation_length: toks.len() as u64,
    })
}

/// Result of the NMT BLEU (`bleu`, `precisions`, `brevity_penalty`, `length_ratio`,
/// `translation_length`, `reference_length` of `evaluate`'s `bleu`).
#[derive(Debug, Clone, PartialEq)]
pub struct NmtBleu {
    /// BLEU, 0..1.
    pub bleu: f64,
    /// Per-order precisions.
    pub precisions: Vec<f64>,
    /// Brevity penalty.
    pub brevity_penalty: f64,
    /// Translation length over reference length.
    pub length_ratio: f64,
    /// Summed translation length.
    pub translation_length: u64,
    /// Summed reference length.
    pub reference_length: u64,
}

/// NMT `compute_bleu` over summed statistics (no smoothing when `smooth` is false). Errors where
/// Python divides by zero (empty references, or an empty translation).
pub fn nmt_bleu_reduce(stats: &[&NmtBleuStats], max_order: usize, smooth: bool) -> Result<NmtBleu> {
    let mut m = vec![0u64; max_order];
    let mut p = vec![0u64; max_order];
    let (mut rl, mut tl) = (0u64, 0u64);
    for s in stats {
        for i in 0..max_order {
            m[i] += s.matches.get(i).copied().unwrap_or(0);
            p[i] += s.possible.get(i).copied().unwrap_or(0);
        }
        rl += s.reference_length;
        tl += s.translation_length;
    }
    let precisions: Vec<f64> = (0..max_order)
        .map(|i| {
            if smooth {
                (m[i] as f64 + 1.0) / (p[i] as f64 + 1.0)
            } else if p[i] > 0 {
                m[i] as f64 / p[i] as f64
            } else {
                0.0
            }
        })
        .collect();
    let geo = if precisions.iter().cloned().fold(f64::INFINITY, f64::min) > 0.0 {
        precisions
            .iter()
            .map(|p| (1.0 / max_order as f64) * p.ln())
            .sum::<f64>()
            .exp()
    } else {
        0.0
    };
    if rl == 0 {
        return Err(Error::invalid("bleu: division by zero (empty references)"));
    }
    let ratio = tl as f64 / rl as f64;
    let bp = if ratio > 1.0 {
        1.0
    } else if ratio == 0.0 {
        return Err(Error::invalid("bleu: division by zero (empty predictions)"));
    } else {
        (1.0 - 1.0 / ratio).exp()
    };
    Ok(NmtBleu {
        bleu: geo * bp,
        precisions,
        brevity_penalty: bp,
        length_ratio: ratio,
        translation_length: tl,
        reference_length: rl,
    })
}
