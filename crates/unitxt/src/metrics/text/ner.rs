//! Unitxt's `NER` metric (a `CustomF1` over `(entity, type)` pairs grouped by type) as
//! per-instance statistics and a reduce producing `f1_<type>`, macro/micro F1, precision and
//! recall, and `in_classes_support`.

use std::collections::{BTreeMap, BTreeSet};

use indexmap::IndexMap;

/// Counts of one type in one or more instances: precision numerator/denominator and recall
/// numerator/denominator.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct GroupCounts {
    /// Predicted pairs that match a reference pair.
    pub pn: u64,
    /// Predicted pairs.
    pub pd: u64,
    /// Reference pairs matched by a prediction.
    pub rn: u64,
    /// Reference pairs.
    pub rd: u64,
}

/// Statistics of one instance: counts per type, and the types that occur in the reference.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NerStats {
    /// Counts by type (types of the prediction or of the reference).
    pub groups: BTreeMap<String, GroupCounts>,
    /// Types present in the reference (the `groups` of `CustomF1.get_groups`).
    pub reference_types: BTreeSet<String>,
}

fn group(pairs: &[(String, String)]) -> BTreeMap<&str, BTreeMap<&str, u64>> {
    let mut m: BTreeMap<&str, BTreeMap<&str, u64>> = BTreeMap::new();
    for (ent, ty) in pairs {
        *m.entry(ty.as_str())
            .or_default()
            .entry(ent.as_str())
            .or_insert(0) += 1;
    }
    m
}

/// The statistics of one prediction against its reference (lists of `(entity, type)`).
pub fn ner_stats(prediction: &[(String, String)], reference: &[(String, String)]) -> NerStats {
    let gp = group(prediction);
    let gr = group(reference);
    let empty = BTreeMap::new();
    let mut out = NerStats {
        reference_types: gr.keys().map(|k| k.to_string()).collect(),
        ..Default::default()
    };
    for ty in gp.keys().chain(gr.keys()) {
        let p = gp.get(ty).unwrap_or(&empty);
        let r = gr.get(ty).unwrap_or(&empty);
        let ratio = |a: &BTreeMap<&str, u64>, b: &BTreeMap<&str, u64>| -> (u64, u64) {
            (
                a.iter()
                    .map(|(k, c)| (*c).min(b.get(k).copied().unwrap_or(0)))
                    .sum(),
                a.values().sum(),
            )
        };
        let (pn, pd) = ratio(p, r);
        let (rn, rd) = ratio(r, p);
        out.groups
            .insert(ty.to_string(), GroupCounts { pn, pd, rn, rd });
    }
    out
}

/// `CustomF1.compute` over instance statistics: per reference type `f1_<type>` (in sorted type
/// order; Unitxt's order follows Python set iteration), `f1_macro`, `recall_macro`,
/// `precision_macro`, `in_classes_support`, `f1_micro`, `recall_micro`, `precision_micro`.
/// `zero_division` is the value of an undefined ratio (0.0 in Unitxt).
pub fn ner_reduce(stats: &[&NerStats], zero_division: f64) -> IndexMap<String, f64> {
    let mut totals: BTreeMap<&str, GroupCounts> = BTreeMap::new();
    let mut ref_types: BTreeSet<&str> = BTreeSet::new();
    for s in stats {
        ref_types.extend(s.reference_types.iter().map(String::as_str));
        for (k, g) in &s.groups {
            let t = totals.entry(k.as_str()).or_default();
            t.pn += g.pn;
            t.pd += g.pd;
            t.rn += g.rn;
            t.rd += g.rd;
        }
    }
    let prec = |g: &GroupCounts| {
        if g.pn == 0 && g.pd == 0 {
            zero_division
        } else {
            g.pn as f64 / g.pd as f64
        }
    };
    let rec = |g: &GroupCounts| {
        if g.rn == 0 && g.rd == 0 {
            zero_division
        } else {
            g.rn as f64 / g.rd as f64
        }
    };
    let f1 = |g: &GroupCounts| {
        let (p, r) = (prec(g), rec(g));
        if p + r == 0.0 {
            zero_division
        } else {
            2.0 * p * r / (p + r)
        }
    };
    let mut out = IndexMap::new();
    let (mut f1s, mut recs, mut precs) = (Vec::new(), Vec::new(), Vec::new());
    let mut all = GroupCounts::default();
    let mut unknown = 0u64;
    for (k, g) in &totals {
        all.pn += g.pn;
        all.pd += g.pd;
        all.rn += g.rn;
        all.rd += g.rd;
        if ref_types.contains(k) {
            out.insert(format!("f1_{k}"), f1(g));
            f1s.push(f1(g));
            recs.push(rec(g));
            precs.push(prec(g));
        } else {
            unknown += g.pd;
        }
    }
    let mean = |v: &[f64]| {
        if v.is_empty() {
            zero_division
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    out.insert("f1_macro".into(), mean(&f1s));
    out.insert("recall_macro".into(), mean(&recs));
    out.insert("precision_macro".into(), mean(&precs));
    out.insert(
        "in_classes_support".into(),
        if all.pd == 0 {
            1.0
        } else {
            1.0 - unknown as f64 / all.pd as f64
        },
    );
    out.insert("f1_micro".into(), f1(&all));
    out.insert("recall_micro".into(), rec(&all));
    out.insert("precision_micro".into(), prec(&all));
    out
}

fn group_ordered(pairs: &[(String, String)]) -> IndexMap<&str, IndexMap<&str, u64>> {
    let mut m: IndexMap<&str, IndexMap<&str, u64>> = IndexMap::new();
    for (ent, ty) in pairs {
        *m.entry(ty.as_str()).or_default().entry(ent.as_str()).or_insert(0) += 1;
    }
    m
}

/// The statistics of one prediction against its reference where entities of the same type
/// match by a similarity `score` (Unitxt's `CustomF1Fuzzy.calculate_groups_ratio`): each entity
/// (in first-appearance order) takes the last of the other side's entities (in their order)
/// whose score reaches the best so far, starting at `min_score`; a matched entity counts the
/// smaller of the two counts, an unmatched one 0. `score(a, b)` is called with the entity
/// being matched first. Errors: those of `score`.
pub fn ner_stats_fuzzy(
    prediction: &[(String, String)],
    reference: &[(String, String)],
    score: &mut dyn FnMut(&str, &str) -> crate::error::Result<f64>,
    min_score: f64,
) -> crate::error::Result<NerStats> {
    let gp = group_ordered(prediction);
    let gr = group_ordered(reference);
    let empty = IndexMap::new();
    let mut out = NerStats { reference_types: gr.keys().map(|k| k.to_string()).collect(), ..Default::default() };
    let mut ratio = |a: &IndexMap<&str, u64>, b: &IndexMap<&str, u64>| -> crate::error::Result<(u64, u64)> {
        let mut num = 0;
        for (ka, &ca) in a {
            let mut best_score = min_score;
            let mut best: Option<u64> = None;
            for (kb, &cb) in b {
                let s = score(ka, kb)?;
                if s >= best_score {
                    best_score = s;
                    best = Some(cb);
                }
            }
            num += best.map(|cb| ca.min(cb)).unwrap_or(0);
        }
        Ok((num, a.values().sum()))
    };
    for ty in gp.keys().chain(gr.keys()) {
        if out.groups.contains_key(*ty) {
            continue;
        }
        let p = gp.get(ty).unwrap_or(&empty);
        let r = gr.get(ty).unwrap_or(&empty);
        let (pn, pd) = ratio(p, r)?;
        let (rn, rd) = ratio(r, p)?;
        out.groups.insert(ty.to_string(), GroupCounts { pn, pd, rn, rd });
    }
    Ok(out)
}

/// Python's `difflib.SequenceMatcher(None, a, b).ratio()` (no junk function; `autojunk` on):
/// twice the number of matched characters over the total length, 1 for two empty strings.
pub fn difflib_ratio(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let (la, lb) = (a.len(), b.len());
    if la + lb == 0 {
        return 1.0;
    }
    // b2j: positions of each character of b; with autojunk, characters of b occurring more
    // than 1% (+1) of the time in a b of 200 or more are "popular" and left out.
    let mut b2j: std::collections::HashMap<char, Vec<usize>> = std::collections::HashMap::new();
    for (j, &c) in b.iter().enumerate() {
        b2j.entry(c).or_default().push(j);
    }
    if lb >= 200 {
        let ntest = lb / 100 + 1;
        b2j.retain(|_, v| v.len() <= ntest);
    }
    let nothing: Vec<usize> = Vec::new();
    let longest = |alo: usize, ahi: usize, blo: usize, bhi: usize| -> (usize, usize, usize) {
        let (mut besti, mut bestj, mut bestsize) = (alo, blo, 0usize);
        let mut j2len: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
        for i in alo..ahi {
            let mut newj2len: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
            for &j in b2j.get(&a[i]).unwrap_or(&nothing) {
                if j < blo {
                    continue;
                }
                if j >= bhi {
                    break;
                }
                let k = if j == 0 { 0 } else { j2len.get(&(j - 1)).copied().unwrap_or(0) } + 1;
                newj2len.insert(j, k);
                if k > bestsize {
                    besti = i + 1 - k;
                    bestj = j + 1 - k;
                    bestsize = k;
                }
            }
            j2len = newj2len;
        }
        // No junk: extend over equal (popular) characters on both sides.
        while besti > alo && bestj > blo && a[besti - 1] == b[bestj - 1] {
            besti -= 1;
            bestj -= 1;
            bestsize += 1;
        }
        while besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] == b[bestj + bestsize] {
            bestsize += 1;
        }
        (besti, bestj, bestsize)
    };
    let mut matches = 0usize;
    let mut queue = vec![(0usize, la, 0usize, lb)];
    while let Some((alo, ahi, blo, bhi)) = queue.pop() {
        let (i, j, k) = longest(alo, ahi, blo, bhi);
        if k > 0 {
            matches += k;
            if alo < i && blo < j {
                queue.push((alo, i, blo, j));
            }
            if i + k < ahi && j + k < bhi {
                queue.push((i + k, ahi, j + k, bhi));
            }
        }
    }
    2.0 * matches as f64 / (la + lb) as f64
}

/// `fuzzywuzzy.fuzz.ratio(a, b) / 100` as computed without python-Levenshtein (on difflib):
/// 1 for equal strings, 0 when one is empty, else `round(100 * ratio) / 100` (ties to even).
pub fn fuzz_ratio(a: &str, b: &str) -> f64 {
    if a == b {
        return 1.0;
    }
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    (100.0 * difflib_ratio(a, b)).round_ties_even() / 100.0
}
