//! sqlglot's tree diff (`sqlglot/diff.py`): the Change Distiller algorithm (Fluri, Würsch,
//! Pinzger and Gall, "Change Distilling: Tree Differencing for Fine-Grained Source Code Change
//! Extraction", IEEE TSE 2007), with sqlglot's thresholds, tie-breaks and edit rules.
//!
//! Unitxt's `sqlglot_optimized_equivalence` counts the edits that are not `Keep`; this port
//! returns how many edits of each kind sqlglot's `diff(source, target)` lists.

use std::collections::{HashMap, HashSet, VecDeque};

use super::ast::{Arg, Expr};
use super::generator::{self, Options, Unsupported};

/// How many edits of each kind `diff` lists.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EditCounts {
    /// `Insert`: a target node no source node matches.
    pub insert: usize,
    /// `Remove`: a source node no target node matches.
    pub remove: usize,
    /// `Move`: a matched node whose parent, or place among its siblings, changed.
    pub moved: usize,
    /// `Update`: a matched node that changed.
    pub update: usize,
    /// `Keep`: a matched node that did not change.
    pub keep: usize,
}

impl EditCounts {
    /// The edits that are not `Keep`.
    pub fn changes(&self) -> usize {
        self.insert + self.remove + self.moved + self.update
    }
}

/// sqlglot's `Expr.__eq__`: the same class and the same arguments, compared as sqlglot's hash
/// compares them. Arguments are taken in key order; `None`, `False` and empty lists count as
/// absent; strings compare case-insensitively, except in `Literal` and `Identifier`, whose
/// truthy arguments compare exactly.
pub fn expr_eq(a: &Expr, b: &Expr) -> bool {
    if a.class != b.class {
        return false;
    }
    let raw = matches!(a.class.as_str(), "Literal" | "Identifier");
    let (ka, kb) = (hash_items(a, raw), hash_items(b, raw));
    ka.len() == kb.len()
        && ka.iter().zip(&kb).all(|(x, y)| match (x, y) {
            (HashItem::Str(k1, s1), HashItem::Str(k2, s2)) => k1 == k2 && s1 == s2,
            (HashItem::True(k1), HashItem::True(k2)) => k1 == k2,
            (HashItem::Child(k1, c1), HashItem::Child(k2, c2)) => k1 == k2 && expr_eq(c1, c2),
            _ => false,
        })
}

enum HashItem<'a> {
    Str(&'a str, String),
    True(&'a str),
    Child(&'a str, &'a Expr),
}

fn hash_items(e: &Expr, raw: bool) -> Vec<HashItem<'_>> {
    let mut args: Vec<&(String, Arg)> = e.args.iter().collect();
    args.sort_by(|x, y| x.0.cmp(&y.0));
    let mut out = Vec::new();
    for (k, v) in args {
        let k = k.as_str();
        match v {
            Arg::Str(s) if raw => {
                if !s.is_empty() {
                    out.push(HashItem::Str(k, s.clone()));
                }
            }
            Arg::Str(s) => out.push(HashItem::Str(k, crate::pystr::lower(s))),
            Arg::Bool(true) => out.push(HashItem::True(k)),
            Arg::Bool(false) => {}
            Arg::Expr(c) => out.push(HashItem::Child(k, c)),
            Arg::List(items) => out.extend(items.iter().map(|c| HashItem::Child(k, c))),
        }
    }
    out
}

/// A tree laid out in breadth-first order (`Expr.bfs`), with parents and children by index.
struct Flat<'a> {
    nodes: Vec<&'a Expr>,
    parent: Vec<Option<usize>>,
    children: Vec<Vec<usize>>,
}

impl<'a> Flat<'a> {
    fn new(root: &'a Expr) -> Flat<'a> {
        let mut f = Flat { nodes: vec![root], parent: vec![None], children: vec![Vec::new()] };
        let mut queue = VecDeque::from([0usize]);
        while let Some(i) = queue.pop_front() {
            let node = f.nodes[i];
            for child in node.children() {
                let j = f.nodes.len();
                f.nodes.push(child);
                f.parent.push(Some(i));
                f.children.push(Vec::new());
                f.children[i].push(j);
                queue.push_back(j);
            }
        }
        f
    }

    fn is_identifier(&self, i: usize) -> bool {
        self.nodes[i].is("Identifier")
    }

    /// `_get_expression_leaves`: the nodes under `i` with no child but identifiers, in
    /// depth-first order.
    fn leaves(&self, i: usize, out: &mut Vec<usize>) {
        let mut any = false;
        for &c in &self.children[i] {
            if !self.is_identifier(c) {
                any = true;
                self.leaves(c, out);
            }
        }
        if !any {
            out.push(i);
        }
    }

    /// `_expression_only_args`: the children that are not identifiers.
    fn expression_args(&self, i: usize) -> Vec<usize> {
        self.children[i].iter().copied().filter(|&c| !self.is_identifier(c)).collect()
    }
}

/// `_get_non_expression_leaves`: the arguments that are neither expressions nor lists of them.
fn non_expression_leaves(e: &Expr) -> Vec<(&str, &Arg)> {
    let mut out: Vec<(&str, &Arg)> = e
        .args
        .iter()
        .filter(|(_, v)| match v {
            Arg::Expr(_) => false,
            Arg::List(items) => items.is_empty(),
            _ => true,
        })
        .map(|(k, v)| (k.as_str(), v))
        .collect();
    out.sort_by(|a, b| a.0.cmp(b.0));
    out
}

/// The classes whose changed nodes sqlglot reports as `Update` (`UPDATABLE_EXPRESSION_TYPES`).
fn updatable(class: &str) -> bool {
    matches!(class, "Alias" | "Boolean" | "Column" | "DataType" | "Lambda" | "Literal" | "Table" | "Window")
}

/// `_is_same_type`: the same class; joins also on the same side, anonymous functions on the
/// same name.
fn same_type(a: &Expr, b: &Expr) -> bool {
    if a.class != b.class {
        return false;
    }
    match a.class.as_str() {
        "Join" => a.arg("side") == b.arg("side"),
        "Anonymous" => match (a.child("this"), b.child("this")) {
            (Some(x), Some(y)) => expr_eq(x, y),
            (None, None) => a.str_arg("this").map(crate::pystr::lower) == b.str_arg("this").map(crate::pystr::lower),
            _ => false,
        },
        _ => true,
    }
}

/// sqlglot's `diff(source, target)`, as counts of each kind of edit.
///
/// Errors: a node the generator does not print (the bigrams that score similarity come from
/// the generated SQL).
pub fn diff(source: &Expr, target: &Expr) -> Result<EditCounts, Unsupported> {
    ChangeDistiller::new(source, target).run()
}

const F: f64 = 0.6;
const T: f64 = 0.6;

struct ChangeDistiller<'a> {
    src: Flat<'a>,
    tgt: Flat<'a>,
    unmatched_src: HashSet<usize>,
    unmatched_tgt: HashSet<usize>,
    histo_src: HashMap<usize, HashMap<String, usize>>,
    histo_tgt: HashMap<usize, HashMap<String, usize>>,
}

impl<'a> ChangeDistiller<'a> {
    fn new(source: &'a Expr, target: &'a Expr) -> ChangeDistiller<'a> {
        let src = Flat::new(source);
        let tgt = Flat::new(target);
        let unmatched_src = (0..src.nodes.len()).filter(|&i| !src.is_identifier(i)).collect();
        let unmatched_tgt = (0..tgt.nodes.len()).filter(|&i| !tgt.is_identifier(i)).collect();
        ChangeDistiller { src, tgt, unmatched_src, unmatched_tgt, histo_src: HashMap::new(), histo_tgt: HashMap::new() }
    }

    fn histo(&mut self, source_side: bool, i: usize) -> Result<HashMap<String, usize>, Unsupported> {
        let (cache, flat) = if source_side { (&mut self.histo_src, &self.src) } else { (&mut self.histo_tgt, &self.tgt) };
        if let Some(h) = cache.get(&i) {
            return Ok(h.clone());
        }
        let text = generator::sql(flat.nodes[i], Options { normalize: false, skip_comments: true })?;
        let chars: Vec<char> = text.chars().collect();
        let mut h: HashMap<String, usize> = HashMap::new();
        for w in chars.windows(2) {
            *h.entry(w.iter().collect()).or_default() += 1;
        }
        cache.insert(i, h.clone());
        Ok(h)
    }

    fn dice(&mut self, s: usize, t: usize) -> Result<f64, Unsupported> {
        let hs = self.histo(true, s)?;
        let ht = self.histo(false, t)?;
        let total: usize = hs.values().sum::<usize>() + ht.values().sum::<usize>();
        if total == 0 {
            return Ok(if expr_eq(self.src.nodes[s], self.tgt.nodes[t]) { 1.0 } else { 0.0 });
        }
        let overlap: usize = hs.iter().filter_map(|(g, n)| ht.get(g).map(|m| (*n).min(*m))).sum();
        Ok(2.0 * overlap as f64 / total as f64)
    }

    fn parent_similarity(&self, s: Option<usize>, t: Option<usize>) -> usize {
        match (s, t) {
            (Some(s), Some(t)) if self.src.nodes[s].class == self.tgt.nodes[t].class => {
                1 + self.parent_similarity(self.src.parent[s], self.tgt.parent[t])
            }
            _ => 0,
        }
    }

    fn leaf_matching(&mut self) -> Result<Vec<(usize, usize)>, Unsupported> {
        let (mut src_leaves, mut tgt_leaves) = (Vec::new(), Vec::new());
        self.src.leaves(0, &mut src_leaves);
        self.tgt.leaves(0, &mut tgt_leaves);
        let mut candidates: Vec<(f64, usize, usize, usize, usize)> = Vec::new();
        for &s in &src_leaves {
            for &t in &tgt_leaves {
                if same_type(self.src.nodes[s], self.tgt.nodes[t]) {
                    let score = self.dice(s, t)?;
                    if score >= F {
                        let parent = self.parent_similarity(Some(s), Some(t));
                        let n = candidates.len();
                        candidates.push((score, parent, n, s, t));
                    }
                }
            }
        }
        // The heap pops the highest score first, then the most similar ancestry, then the
        // earliest candidate.
        candidates.sort_by(|a, b| b.0.partial_cmp(&a.0).expect("finite").then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
        let mut matched = Vec::new();
        for (_, _, _, s, t) in candidates {
            if self.unmatched_src.contains(&s) && self.unmatched_tgt.contains(&t) {
                matched.push((s, t));
                self.unmatched_src.remove(&s);
                self.unmatched_tgt.remove(&t);
            }
        }
        Ok(matched)
    }

    fn run(mut self) -> Result<EditCounts, Unsupported> {
        let leaf_matches = self.leaf_matching()?;
        let mut matchings: HashMap<usize, usize> = leaf_matches.iter().copied().collect();
        let leaf_pairs = leaf_matches.clone();
        let ordered_src: Vec<usize> = (0..self.src.nodes.len()).filter(|i| self.unmatched_src.contains(i)).collect();
        let mut ordered_tgt: Vec<usize> = (0..self.tgt.nodes.len()).filter(|i| self.unmatched_tgt.contains(i)).collect();
        for s in ordered_src {
            let mut found = None;
            for (pos, &t) in ordered_tgt.iter().enumerate() {
                if !same_type(self.src.nodes[s], self.tgt.nodes[t]) {
                    continue;
                }
                let (mut sl, mut tl) = (Vec::new(), Vec::new());
                self.src.leaves(s, &mut sl);
                self.tgt.leaves(t, &mut tl);
                let sl: HashSet<usize> = sl.into_iter().collect();
                let tl: HashSet<usize> = tl.into_iter().collect();
                let max_leaves = sl.len().max(tl.len());
                let score = if max_leaves > 0 {
                    let common = leaf_pairs.iter().filter(|(a, b)| sl.contains(a) && tl.contains(b)).count();
                    common as f64 / max_leaves as f64
                } else {
                    0.0
                };
                let adjusted_t = if sl.len().min(tl.len()) > 4 { T } else { 0.4 };
                if score >= 0.8 || (score >= adjusted_t && self.dice(s, t)? >= F) {
                    found = Some((pos, t));
                    break;
                }
            }
            if let Some((pos, t)) = found {
                matchings.insert(s, t);
                self.unmatched_src.remove(&s);
                self.unmatched_tgt.remove(&t);
                ordered_tgt.remove(pos);
            }
        }
        let mut counts = EditCounts { remove: self.unmatched_src.len(), insert: self.unmatched_tgt.len(), ..EditCounts::default() };
        for (&s, &t) in &matchings {
            let (sn, tn) = (self.src.nodes[s], self.tgt.nodes[t]);
            let identical = expr_eq(sn, tn);
            if !updatable(&sn.class) || identical {
                if identical {
                    let (sp, tp) = (self.src.parent[s], self.tgt.parent[t]);
                    let moved = match (sp, tp) {
                        (Some(_), None) | (None, Some(_)) => true,
                        (Some(sp), Some(tp)) => matchings.get(&sp) != Some(&tp),
                        (None, None) => false,
                    };
                    if moved {
                        counts.moved += 1;
                    }
                } else {
                    counts.moved += self.move_edits(s, t, &matchings);
                }
                if non_expression_leaves(sn) != non_expression_leaves(tn) {
                    counts.update += 1;
                } else {
                    counts.keep += 1;
                }
            } else {
                counts.update += 1;
            }
        }
        Ok(counts)
    }

    /// `_generate_move_edits`: the matched children of `s` outside the longest common
    /// subsequence of matched children.
    fn move_edits(&self, s: usize, t: usize, matchings: &HashMap<usize, usize>) -> usize {
        let sa = self.src.expression_args(s);
        let ta = self.tgt.expression_args(t);
        let lcs: HashSet<usize> = lcs(&sa, &ta, |l, r| matchings.get(&l) == Some(&r)).into_iter().collect();
        sa.iter().filter(|a| !lcs.contains(a) && !self.unmatched_src.contains(a)).count()
    }
}

/// `_lcs`: sqlglot's longest common subsequence of `a` and `b`, with its tie-break (on equal
/// lengths the subsequence without `b`'s last element wins).
fn lcs(a: &[usize], b: &[usize], equal: impl Fn(usize, usize) -> bool) -> Vec<usize> {
    let (n, m) = (a.len(), b.len());
    let mut table: Vec<Vec<Vec<usize>>> = vec![vec![Vec::new(); m + 1]; n + 1];
    for i in 1..=n {
        for j in 1..=m {
            table[i][j] = if equal(a[i - 1], b[j - 1]) {
                let mut v = table[i - 1][j - 1].clone();
                v.push(a[i - 1]);
                v
            } else if table[i - 1][j].len() > table[i][j - 1].len() {
                table[i - 1][j].clone()
            } else {
                table[i][j - 1].clone()
            };
        }
    }
    table[n][m].clone()
}
