//! NLTK's Punkt sentence splitter in its "tokenize" mode (`nltk.sent_tokenize(text)` with
//! `language="english"`), driven by the trained parameters of the `punkt_tab` data package
//! (abbreviations, collocations, sentence starters, orthographic context), loaded at run time.
//!
//! Mirrors `PunktSentenceTokenizer.span_tokenize` of NLTK 3.9/3.10: candidate breaks are the
//! `.?!` characters followed by punctuation or whitespace and a token; each candidate's context
//! (previous word, the mark, the following token) is annotated with the two Punkt passes, and the
//! resulting slices are realigned over closing quotes and brackets.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::error::{Error, Result};

const ORTHO_BEG_UC: u32 = 1 << 1;
const ORTHO_MID_UC: u32 = 1 << 2;
const ORTHO_UNK_UC: u32 = 1 << 3;
const ORTHO_BEG_LC: u32 = 1 << 4;
const ORTHO_MID_LC: u32 = 1 << 5;
const ORTHO_UNK_LC: u32 = 1 << 6;
const ORTHO_UC: u32 = ORTHO_BEG_UC + ORTHO_MID_UC + ORTHO_UNK_UC;
const ORTHO_LC: u32 = ORTHO_BEG_LC + ORTHO_MID_LC + ORTHO_UNK_LC;

/// A Punkt model: the four parameter tables of one `punkt_tab/<language>/` directory.
#[derive(Debug, Clone, Default)]
pub struct Punkt {
    abbrev_types: HashSet<String>,
    collocations: HashSet<(String, String)>,
    sent_starters: HashSet<String>,
    ortho_context: HashMap<String, u32>,
}

/// One word token with its Punkt annotations.
#[derive(Debug, Clone)]
struct Tok {
    tok: String,
    typ: String,
    period_final: bool,
    sentbreak: bool,
    abbr: bool,
    ellipsis: bool,
}

fn is_space(c: char) -> bool {
    super::py_is_space(c)
}

/// Python `\w` for one character (Unicode letters, digits, underscore).
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `[^\W\d]`: a word character that is not a decimal digit.
fn is_alpha_like(c: char) -> bool {
    is_word(c) && !c.is_numeric()
}

/// Punkt's `_RE_NUMERIC`: `^-?[\.,]?\d[\d,\.-]*\.?$` (Python `\d` = Unicode decimal digits).
fn is_numeric_token(s: &str) -> bool {
    let c: Vec<char> = s.chars().collect();
    let mut i = 0;
    if c.get(i) == Some(&'-') {
        i += 1;
    }
    if matches!(c.get(i), Some('.') | Some(',')) {
        i += 1;
    }
    if !c.get(i).is_some_and(|d| is_digit(*d)) {
        return false;
    }
    i += 1;
    // `[\d,\.-]*\.?$`: the optional final period is also accepted by the class.
    c[i..]
        .iter()
        .all(|d| is_digit(*d) || matches!(d, ',' | '.' | '-'))
}

/// Python `\d` (Unicode decimal digits); outside ASCII approximated by Rust's `is_numeric`.
fn is_digit(c: char) -> bool {
    c.is_ascii_digit() || (!c.is_ascii() && c.is_numeric())
}

impl Tok {
    fn new(tok: &str) -> Tok {
        let lower = tok.to_lowercase();
        let typ = if is_numeric_token(&lower) {
            "##number##".to_string()
        } else {
            lower
        };
        Tok {
            tok: tok.to_string(),
            typ,
            period_final: tok.ends_with('.'),
            sentbreak: false,
            abbr: false,
            ellipsis: false,
        }
    }
    fn type_no_period(&self) -> &str {
        if self.typ.chars().count() > 1 && self.typ.ends_with('.') {
            &self.typ[..self.typ.len() - 1]
        } else {
            &self.typ
        }
    }
    fn type_no_sentperiod(&self) -> &str {
        if self.sentbreak {
            self.type_no_period()
        } else {
            &self.typ
        }
    }
    fn first(&self) -> char {
        self.tok.chars().next().unwrap_or(' ')
    }
    fn first_upper(&self) -> bool {
        self.first().is_uppercase()
    }
    fn first_lower(&self) -> bool {
        self.first().is_lowercase()
    }
    fn is_ellipsis(&self) -> bool {
        // `\.\.+$` matched at the start: the whole token is two or more periods.
        self.tok.len() >= 2 && self.tok.chars().all(|c| c == '.')
    }
    fn is_initial(&self) -> bool {
        // `[^\W\d]\.$` matched at the start.
        let c: Vec<char> = self.tok.chars().collect();
        c.len() == 2 && is_alpha_like(c[0]) && c[1] == '.'
    }
}

/// Characters that end a word token (Punkt's `_re_non_word_chars`).
fn is_non_word(c: char) -> bool {
    matches!(
        c,
        ')' | '"'
            | ';'
            | '}'
            | ']'
            | '*'
            | ':'
            | '@'
            | '\''
            | '('
            | '{'
            | '['
            | '\u{2018}'
            | '\u{2019}'
            | '\u{201c}'
            | '\u{201d}'
            | '\u{ab}'
            | '\u{bb}'
            | '?'
            | '!'
    )
}

/// Length in chars of a multi-character punctuation (`\-{2,}|\.{2,}|(?:\.\s){2,}\.`) at `i`.
fn multi_char_at(c: &[char], i: usize) -> Option<usize> {
    for ch in ['-', '.'] {
        let n = c[i..].iter().take_while(|x| **x == ch).count();
        if n >= 2 {
            return Some(n);
        }
    }
    let mut j = i;
    let mut reps = 0;
    while j + 1 < c.len() && c[j] == '.' && is_space(c[j + 1]) {
        j += 2;
        reps += 1;
    }
    // Backtrack like the regex: the longest repetition count >= 2 followed by a period.
    while reps >= 2 {
        if c.get(i + 2 * reps) == Some(&'.') {
            return Some(2 * reps + 1);
        }
        reps -= 1;
    }
    None
}

/// Punkt's word tokenizer regex (`_word_tokenize_fmt`) as `findall` over one line.
fn word_tokenize(line: &str) -> Vec<String> {
    let c: Vec<char> = line.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        if let Some(n) = multi_char_at(&c, i) {
            out.push(c[i..i + n].iter().collect());
            i += n;
            continue;
        }
        let starts_word = !matches!(
            c[i],
            '(' | '"'
                | '`'
                | '{'
                | '['
                | ':'
                | ';'
                | '&'
                | '#'
                | '*'
                | '@'
                | ')'
                | '}'
                | ']'
                | '-'
                | ','
        );
        if starts_word && !is_space(c[i]) {
            // `\S+?` then the lookahead for a word end; lazily extend one char at a time.
            let mut j = i + 1;
            let mut found = None;
            loop {
                let end = j >= c.len()
                    || is_space(c[j])
                    || is_non_word(c[j])
                    || multi_char_at(&c, j).is_some()
                    || (c[j] == ','
                        && (j + 1 >= c.len()
                            || is_space(c[j + 1])
                            || is_non_word(c[j + 1])
                            || multi_char_at(&c, j + 1).is_some()));
                if end {
                    found = Some(j);
                    break;
                }
                if is_space(c[j]) {
                    break;
                }
                j += 1;
            }
            if let Some(j) = found {
                out.push(c[i..j].iter().collect());
                i = j;
                continue;
            }
        }
        if !is_space(c[i]) {
            out.push(c[i].to_string());
        }
        i += 1;
    }
    out
}

impl Punkt {
    /// Loads `abbrev_types.txt`, `collocations.tab`, `sent_starters.txt` and `ortho_context.tab`
    /// from `dir` (e.g. `<NLTK_DATA>/tokenizers/punkt_tab/english`). Errors when a file is
    /// missing or a line is malformed.
    pub fn load(dir: &Path) -> Result<Punkt> {
        let read = |name: &str| -> Result<String> {
            std::fs::read_to_string(dir.join(name)).map_err(|e| {
                Error::io(format!(
                    "Punkt model file {}: {e}",
                    dir.join(name).display()
                ))
            })
        };
        let lines = |s: String| -> Vec<String> { s.lines().map(|l| l.to_string()).collect() };
        let mut p = Punkt {
            abbrev_types: lines(read("abbrev_types.txt")?).into_iter().collect(),
            sent_starters: lines(read("sent_starters.txt")?).into_iter().collect(),
            ..Default::default()
        };
        for l in lines(read("collocations.tab")?) {
            let (a, b) = l
                .split_once('\t')
                .ok_or_else(|| Error::invalid(format!("Punkt collocation {l:?}")))?;
            p.collocations.insert((a.to_string(), b.to_string()));
        }
        for l in lines(read("ortho_context.tab")?) {
            let (a, b) = l
                .split_once('\t')
                .ok_or_else(|| Error::invalid(format!("Punkt ortho context {l:?}")))?;
            let v = b
                .parse()
                .map_err(|_| Error::invalid(format!("Punkt ortho context {l:?}")))?;
            p.ortho_context.insert(a.to_string(), v);
        }
        Ok(p)
    }

    /// Loads the English model from `$NLTK_DATA` (first entry) or, failing that, from
    /// the first `shared/nltk_data` found in the current directory or one of its ancestors.
    pub fn english_from_env() -> Result<Punkt> {
        let mut roots: Vec<std::path::PathBuf> = Vec::new();
        if let Ok(v) = std::env::var("NLTK_DATA") {
            roots.extend(std::env::split_paths(&v));
        }
        if let Ok(cwd) = std::env::current_dir() {
            roots.extend(cwd.ancestors().map(|a| a.join("shared/nltk_data")));
        }
        for r in &roots {
            let d = r.join("tokenizers/punkt_tab/english");
            if d.is_dir() {
                return Punkt::load(&d);
            }
        }
        Err(Error::not_found(
            "NLTK punkt_tab/english data (set NLTK_DATA)",
        ))
    }

    fn first_pass(&self, t: &mut Tok) {
        let tok = t.tok.as_str();
        if tok == "." || tok == "?" || tok == "!" {
            t.sentbreak = true;
        } else if t.is_ellipsis() {
            t.ellipsis = true;
        } else if t.period_final && !tok.ends_with("..") {
            let stem = tok[..tok.len() - 1].to_lowercase();
            let last = stem.rsplit('-').next().unwrap_or("");
            if self.abbrev_types.contains(&stem) || self.abbrev_types.contains(last) {
                t.abbr = true;
            } else {
                t.sentbreak = true;
            }
        }
    }

    fn ortho(&self, typ: &str) -> u32 {
        self.ortho_context.get(typ).copied().unwrap_or(0)
    }

    /// Punkt's orthographic heuristic: Some(true) = sentence starter, Some(false) = not, None = unknown.
    fn ortho_heuristic(&self, t: &Tok) -> Option<bool> {
        if matches!(t.tok.as_str(), ";" | ":" | "," | "." | "!" | "?") {
            return Some(false);
        }
        let oc = self.ortho(t.type_no_sentperiod());
        if t.first_upper() && (oc & ORTHO_LC) != 0 && (oc & ORTHO_MID_UC) == 0 {
            return Some(true);
        }
        if t.first_lower() && ((oc & ORTHO_UC) != 0 || (oc & ORTHO_BEG_LC) == 0) {
            return Some(false);
        }
        None
    }

    fn second_pass(&self, t1: &mut Tok, t2: &Tok) {
        if !t1.period_final {
            return;
        }
        let typ = t1.type_no_period().to_string();
        let next_typ = t2.type_no_sentperiod().to_string();
        let initial = t1.is_initial();
        if self.collocations.contains(&(typ.clone(), next_typ.clone())) {
            t1.sentbreak = false;
            t1.abbr = true;
            return;
        }
        if (t1.abbr || t1.ellipsis) && !initial {
            if self.ortho_heuristic(t2) == Some(true) {
                t1.sentbreak = true;
                return;
            }
            if t2.first_upper() && self.sent_starters.contains(&next_typ) {
                t1.sentbreak = true;
                return;
            }
        }
        if initial || typ == "##number##" {
            let s = self.ortho_heuristic(t2);
            if s == Some(false) {
                t1.sentbreak = false;
                t1.abbr = true;
                return;
            }
            if s.is_none() && initial && t2.first_upper() && (self.ortho(&next_typ) & ORTHO_LC) == 0
            {
                t1.sentbreak = false;
                t1.abbr = true;
            }
        }
    }

    /// Punkt's `text_contains_sentbreak`: a sentence break on any token but the last.
    fn contains_sentbreak(&self, text: &str) -> bool {
        let mut toks: Vec<Tok> = Vec::new();
        for line in text.split('\n') {
            if !super::py_strip(line).is_empty() {
                toks.extend(word_tokenize(line).iter().map(|w| Tok::new(w)));
            }
        }
        for t in toks.iter_mut() {
            self.first_pass(t);
        }
        for i in 0..toks.len() {
            if i + 1 < toks.len() {
                let next = toks[i + 1].clone();
                self.second_pass(&mut toks[i], &next);
            }
            if toks[i].sentbreak {
                return i + 1 < toks.len();
            }
        }
        false
    }

    /// `nltk.sent_tokenize(text)`: the sentences of `text`, as substrings.
    pub fn sent_tokenize(&self, text: &str) -> Vec<String> {
        let c: Vec<char> = text.chars().collect();
        let s = |a: usize, b: usize| -> String { c[a.min(b)..b].iter().collect() };
        // Candidate ends: [.?!] followed by a non-word char, or by whitespace and a token.
        struct Cand {
            start: usize,
            end: usize,
            after_end: usize,
            next_tok: Option<usize>,
        }
        let mut cands = Vec::new();
        for i in 0..c.len() {
            if !matches!(c[i], '.' | '?' | '!') {
                continue;
            }
            if i + 1 < c.len() && is_non_word(c[i + 1]) {
                cands.push(Cand {
                    start: i,
                    end: i + 1,
                    after_end: i + 2,
                    next_tok: None,
                });
                continue;
            }
            let mut j = i + 1;
            while j < c.len() && is_space(c[j]) {
                j += 1;
            }
            if j > i + 1 && j < c.len() {
                let mut k = j;
                while k < c.len() && !is_space(c[k]) {
                    k += 1;
                }
                cands.push(Cand {
                    start: i,
                    end: i + 1,
                    after_end: k,
                    next_tok: Some(j),
                });
            }
        }
        // Pair each candidate with its previous word, dropping overlapping ones.
        let mut contexts: Vec<(&Cand, String)> = Vec::new();
        let mut prev: Option<(&Cand, usize, usize)> = None;
        for m in &cands {
            let prev_stop = prev.map(|p| p.2).unwrap_or(0);
            let prev_start = prev.map(|p| p.1).unwrap_or(0);
            let before = &c[prev_stop.min(m.start)..m.start];
            let last_ws = (0..before.len())
                .rev()
                .find(|k| matches!(before[*k], ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c'))
                .unwrap_or(0);
            let word_start = if last_ws != 0 {
                last_ws + prev_stop + 1
            } else {
                prev_start
            };
            if let Some((pm, ps, pe)) = prev {
                if pe <= word_start {
                    contexts.push((pm, s(ps, pe) + &s(pm.start, pm.after_end)));
                }
            }
            prev = Some((m, word_start, m.start));
        }
        if let Some((pm, ps, pe)) = prev {
            contexts.push((pm, s(ps, pe) + &s(pm.start, pm.after_end)));
        }
        let mut slices = Vec::new();
        let mut last_break = 0;
        for (m, ctx) in contexts {
            if self.contains_sentbreak(&ctx) {
                slices.push((last_break, m.end));
                last_break = m.next_tok.unwrap_or(m.end);
            }
        }
        let rlen = c.len() - c.iter().rev().take_while(|x| is_space(**x)).count();
        slices.push((last_break, rlen));
        // Realign closing punctuation that follows a break.
        let mut out = Vec::new();
        let mut realign = 0;
        for k in 0..slices.len() {
            let (a, b) = (slices[k].0 + realign, slices[k].1);
            let Some(&(na, nb)) = slices.get(k + 1) else {
                if a < b {
                    out.push(s(a, b));
                }
                continue;
            };
            match realign_match(&c[na.min(nb)..nb]) {
                Some((keep, end)) => {
                    out.push(s(a, na + keep));
                    realign = end;
                }
                None => {
                    realign = 0;
                    if a < b {
                        out.push(s(a, b));
                    }
                }
            }
        }
        out
    }
}

/// `["')\]}‘’“”«»]+?(?:\s+|(?=--)|$)` matched at the start of `t`: (length of the match without
/// trailing whitespace, length of the match).
fn realign_match(t: &[char]) -> Option<(usize, usize)> {
    let closing = |c: char| {
        matches!(
            c,
            '"' | '\''
                | ')'
                | ']'
                | '}'
                | '\u{2018}'
                | '\u{2019}'
                | '\u{201c}'
                | '\u{201d}'
                | '\u{ab}'
                | '\u{bb}'
        )
    };
    let mut n = 0;
    while n < t.len() && closing(t[n]) {
        n += 1;
        let ws = t[n..].iter().take_while(|c| is_space(**c)).count();
        if ws > 0 {
            return Some((n, n + ws));
        }
        if n == t.len() || (t.get(n) == Some(&'-') && t.get(n + 1) == Some(&'-')) {
            return Some((n, n));
        }
    }
    None
}
