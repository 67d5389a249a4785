//! Python's `re` module on top of `fancy-regex` (backtracking, so look-around and
//! back-references work). Python-only syntax is translated: `(?P=name)`, `\Z`, and `$` without
//! MULTILINE (which in Python also matches before a final newline). Positions reported to the
//! expression are in characters, as in Python.

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use fancy_regex::{Regex, RegexBuilder};

use super::eval::Ctx;
use super::value::{to_str, PyStr, PyVal};
use super::{err, EResult};

/// Bytes of text a regex search examines per step charged (searching costs more per byte
/// than the plain scans of [`super::eval::BYTES_PER_STEP`]).
pub const REGEX_BYTES_PER_STEP: usize = 16;

/// `re.IGNORECASE`.
pub const IGNORECASE: i64 = 2;
/// `re.MULTILINE`.
pub const MULTILINE: i64 = 8;
/// `re.DOTALL`.
pub const DOTALL: i64 = 16;
/// `re.VERBOSE`.
pub const VERBOSE: i64 = 64;

/// A compiled pattern (`re.Pattern`).
#[derive(Debug)]
pub struct Pattern {
    /// The pattern as written in Python.
    pub source: PyStr,
    /// The `re` flags it was compiled with, as an integer.
    pub flags: i64,
    /// What `search`, `findall` and the like run.
    search: Searcher,
    /// The translated source, kept to build the anchored forms on first use.
    translated: String,
    /// `\A(?:…)`, for `match`, built on first use.
    anchored: OnceCell<Regex>,
    /// `\A(?:…)\z`, for `fullmatch`, built on first use.
    full: OnceCell<Regex>,
    /// A literal that every match starts with, if the pattern has one: searches skip to
    /// its next occurrence before running the (backtracking) matcher.
    prefix: Option<String>,
    /// Group index by name.
    names: Vec<(String, usize)>,
    groups: usize,
}

/// How a [`Pattern`] searches.
#[derive(Debug)]
enum Searcher {
    /// The compiled pattern (fancy-regex, backtracking where the pattern needs it).
    General(Regex),
    /// A faster equivalent for the shape [`LazyAhead`] covers. Such a pattern has no
    /// capturing group, so the general regex is not built at all: building it cost about
    /// 0.65M instructions per thread on human_eval's pattern, 4% of that recipe.
    LazyAhead(LazyAhead),
}

/// A pattern `L.*?(?=B)`: a literal `L`, a lazy `.*`, and a lookahead `B` without groups
/// (human_eval's `assert.*?(?=\n\s*assert|$)`). The backtracking matcher steps the lazy `.*`
/// one character at a time and tries `B` at each step; the same match is found directly: at
/// the next occurrence `s` of `L` (ending at `e`), the match is `s..p` for the leftmost `p >= e`
/// where `B` matches, provided `.` can cross `e..p` (always with DOTALL, otherwise only up to
/// the next newline); failing that, the next occurrence of `L` is tried, as Python does.
#[derive(Debug)]
struct LazyAhead {
    literal: String,
    dotall: bool,
    /// `B` alone, searched unanchored from `e` (its leftmost match start is `p`).
    ahead: Regex,
}

impl LazyAhead {
    /// Recognises the shape in `src`; `None` for anything else (the general matcher runs).
    fn new(src: &str, flags: i64, prefix: Option<&str>) -> Option<LazyAhead> {
        let literal = prefix?;
        let body = src.strip_prefix(literal)?.strip_prefix(".*?(?=")?.strip_suffix(')')?;
        // The walk below copies `B` byte by byte as characters: ASCII only.
        if flags & (IGNORECASE | VERBOSE) != 0 || body.is_empty() || !body.is_ascii() {
            return None;
        }
        // `B` may use escapes, classes and `|`, but no groups, and `$` only at the end of a
        // branch. Inside a lookahead only where `B` starts matters, so a branch-final `$`
        // (Python: end, or before a final newline) can consume that newline: `\n?\z`.
        let multiline = flags & MULTILINE != 0;
        let b = body.as_bytes();
        let mut out = String::with_capacity(body.len() + 8);
        let mut i = 0;
        let mut in_class = false;
        while i < b.len() {
            let c = b[i];
            match c {
                b'\\' => {
                    let n = *b.get(i + 1)?;
                    if n.is_ascii_digit() || n == b'Z' && !in_class {
                        // A back-reference, or `\Z` (left to the general translation).
                        return None;
                    }
                    out.push_str(body.get(i..i + 2)?);
                    i += 2;
                    continue;
                }
                b'[' if !in_class => in_class = true,
                b']' if in_class => in_class = false,
                b'(' | b')' if !in_class => return None,
                b'[' | b'&' | b'~' if in_class => return None,
                b'$' if !in_class && !multiline => {
                    if !matches!(b.get(i + 1), None | Some(b'|')) {
                        return None;
                    }
                    out.push_str("\\n?\\z");
                    i += 1;
                    continue;
                }
                _ => {}
            }
            out.push(c as char);
            i += 1;
        }
        if in_class {
            return None;
        }
        let ahead = build(&out, flags).ok()?;
        Some(LazyAhead { literal: literal.to_string(), dotall: flags & DOTALL != 0, ahead })
    }

    /// The span of the leftmost match at or after byte `pos`.
    ///
    /// Linear in the text: where `B` next starts and where the next newline is are found
    /// once and reused while the candidate start moves up to them (whether `B` matches at a
    /// position does not depend on where its search began, so the leftmost start at or after
    /// `e` is the one found from an earlier `e0 <= e`, as long as it is at or after `e`).
    fn search(&self, text: &str, mut pos: usize) -> EResult<Option<(usize, usize)>> {
        // (searched from, leftmost start of B at or after it).
        let mut ahead_cache: Option<(usize, Option<usize>)> = None;
        // (searched from, next newline at or after it).
        let mut newline_cache: Option<(usize, Option<usize>)> = None;
        while let Some(i) = text[pos..].find(self.literal.as_str()) {
            let s = pos + i;
            let e = s + self.literal.len();
            let limit = if self.dotall {
                text.len()
            } else {
                let nl = match newline_cache {
                    Some((from, found)) if from <= e && found.is_none_or(|k| k >= e) => found,
                    _ => {
                        let found = text[e..].find('\n').map(|k| e + k);
                        newline_cache = Some((e, found));
                        found
                    }
                };
                nl.unwrap_or(text.len())
            };
            let next = match ahead_cache {
                Some((from, found)) if from <= e && found.is_none_or(|k| k >= e) => found,
                _ => {
                    let found = self
                        .ahead
                        .find_from_pos(text, e)
                        .map_err(|x| err(format!("regex failed: {x}")))?
                        .map(|m| m.start());
                    ahead_cache = Some((e, found));
                    found
                }
            };
            match next {
                Some(p) if p <= limit => return Ok(Some((s, p))),
                // No later start can find B either.
                None => return Ok(None),
                _ => pos = s + text[s..].chars().next().map_or(1, char::len_utf8),
            }
        }
        Ok(None)
    }
}

/// The result of a successful match (`re.Match`).
#[derive(Debug)]
pub struct MatchObj {
    /// The string the match was made in.
    pub text: PyStr,
    /// Byte spans of the groups, group 0 first.
    spans: Vec<Option<(usize, usize)>>,
    names: Vec<(String, usize)>,
}

fn translate(src: &str, flags: i64) -> String {
    let multiline = flags & MULTILINE != 0 || src.starts_with("(?m") || src.contains("(?m)");
    let chars: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len() + 8);
    let mut i = 0;
    let mut in_class = false;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && i + 1 < chars.len() {
            let n = chars[i + 1];
            if !in_class && n == 'Z' {
                out.push_str("\\z");
            } else {
                out.push(c);
                out.push(n);
            }
            i += 2;
            continue;
        }
        if in_class {
            match c {
                ']' if !(out.ends_with('[') || out.ends_with("[^")) => in_class = false,
                '[' => {
                    out.push_str("\\[");
                    i += 1;
                    continue;
                }
                '&' | '~' => {
                    out.push('\\');
                }
                _ => {}
            }
            out.push(c);
            i += 1;
            continue;
        }
        match c {
            '[' => {
                in_class = true;
                out.push('[');
                if chars.get(i + 1) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                if chars.get(i + 1) == Some(&']') {
                    out.push_str("\\]");
                    i += 1;
                }
                i += 1;
                continue;
            }
            '(' if chars.get(i + 1..i + 4) == Some(&['?', 'P', '=']) => {
                let rest: String = chars[i + 4..].iter().collect();
                if let Some(end) = rest.find(')') {
                    out.push_str(&format!("\\k<{}>", &rest[..end]));
                    i += 4 + rest[..end].chars().count() + 1;
                    continue;
                }
            }
            '$' if !multiline => {
                out.push_str("(?:\\z|(?=\\n\\z))");
                i += 1;
                continue;
            }
            _ => {}
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Whether the pattern is verbose: by flag or by a leading inline flag group with `x`.
fn is_verbose(src: &str, flags: i64) -> bool {
    if flags & VERBOSE != 0 {
        return true;
    }
    src.strip_prefix("(?")
        .and_then(|r| r.find([')', ':']).map(|e| &r[..e]))
        .is_some_and(|f| f.chars().all(|c| c.is_ascii_alphabetic() || c == '-') && f.split('-').next().is_some_and(|on| on.contains('x')))
}

/// Compiles `pat` (already translated from Python's syntax) with `flags`.
///
/// The delegate regex never gets a fully built DFA (a size limit of 0 makes
/// regex-automata's meta engine skip it and search with its lazy DFA): building one took
/// ~1.9M instructions for a pattern as small as human_eval's `assert.*?(?=\n\s*assert|$)`,
/// 30% of that whole recipe, while the lazy DFA matches the same strings and costs nothing
/// up front.
fn build(pat: &str, flags: i64) -> EResult<Regex> {
    let mut b = RegexBuilder::new(pat);
    b.case_insensitive(flags & IGNORECASE != 0)
        .multi_line(flags & MULTILINE != 0)
        .dot_matches_new_line(flags & DOTALL != 0)
        .verbose_mode(flags & VERBOSE != 0)
        .delegate_dfa_size_limit(0)
        .backtrack_limit(5_000_000);
    b.build().map_err(|e| err(format!("re.error: {e}")))
}

thread_local! {
    /// A bounded cache, as Python's `re` module keeps one: the patterns [`compile`] built on
    /// this thread, by source and flags, at most 257 (past 256 it is emptied before the next
    /// pattern goes in), so that a sandboxed expression calling `re.sub(...)` per instance
    /// compiles its pattern once per thread.
    static CACHE: RefCell<HashMap<(String, i64), Rc<Pattern>>> = RefCell::new(HashMap::new());
}

/// The literal text that every match of `src` must start with, or `None` when that is not
/// certain: case-insensitive or verbose patterns, inline flags, a top-level alternation, or no
/// plain leading character. A character followed by a quantifier is not part of the prefix.
fn literal_prefix(src: &str, flags: i64) -> Option<String> {
    if flags & (IGNORECASE | VERBOSE) != 0 || src.starts_with("(?") {
        return None;
    }
    // Any `|` outside groups and classes makes the leading literal optional.
    let mut depth = 0usize;
    let mut chars = src.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '[' => {
                if chars.peek() == Some(&'^') {
                    chars.next();
                }
                if chars.peek() == Some(&']') {
                    chars.next();
                }
                while let Some(k) = chars.next() {
                    match k {
                        '\\' => {
                            chars.next();
                        }
                        ']' => break,
                        _ => {}
                    }
                }
            }
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            '|' if depth == 0 => return None,
            _ => {}
        }
    }
    let meta = |c: char| "\\.^$*+?{}[]()|".contains(c);
    let end = src.find(meta).unwrap_or(src.len());
    let mut prefix = &src[..end];
    if src[end..].starts_with(['*', '+', '?', '{']) {
        prefix = prefix.char_indices().last().map_or("", |(i, _)| &prefix[..i]);
    }
    (!prefix.is_empty()).then(|| prefix.to_string())
}

/// `re.compile(src, flags)`, cached per thread.
pub fn compile(src: &str, flags: i64) -> EResult<Rc<Pattern>> {
    let key = (src.to_string(), flags);
    if let Some(p) = CACHE.with(|c| c.borrow().get(&key).cloned()) {
        return Ok(p);
    }
    let translated = translate(src, flags);
    let prefix = literal_prefix(src, flags);
    // The shape `L.*?(?=B)` that LazyAhead takes has no capturing group: `L` is a plain
    // literal (the pattern starts with it verbatim), `(?=` does not capture, and `B` has no
    // parenthesis.
    let (search, names, groups) = match LazyAhead::new(src, flags, prefix.as_deref()) {
        Some(la) => (Searcher::LazyAhead(la), Vec::new(), 0),
        None => {
            let re = build(&translated, flags)?;
            let mut names = Vec::new();
            for (i, n) in re.capture_names().enumerate() {
                if let Some(n) = n {
                    names.push((n.to_string(), i));
                }
            }
            let groups = re.captures_len().saturating_sub(1);
            (Searcher::General(re), names, groups)
        }
    };
    let p = Rc::new(Pattern {
        source: src.into(),
        flags,
        search,
        translated,
        anchored: OnceCell::new(),
        full: OnceCell::new(),
        prefix,
        names,
        groups,
    });
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() > 256 {
            c.clear();
        }
        c.insert(key, p.clone());
    });
    Ok(p)
}

/// Which kind of matching to do.
#[derive(Clone, Copy)]
pub enum Mode {
    /// `re.search`: a match anywhere.
    Search,
    /// `re.match`: a match at the start.
    Match,
    /// `re.fullmatch`: a match of the whole string.
    Full,
}

impl Pattern {
    /// Number of capturing groups.
    pub fn groups(&self) -> usize {
        self.groups
    }

    /// `\A(?:…)` or `\A(?:…)\z` around the translated source, built once.
    fn anchored_form<'a>(&self, cell: &'a OnceCell<Regex>, tail: &str) -> EResult<&'a Regex> {
        if let Some(re) = cell.get() {
            return Ok(re);
        }
        // In verbose mode a trailing comment would swallow the closing parenthesis.
        let end = if is_verbose(&self.source, self.flags) { "\n" } else { "" };
        let re = build(&format!("\\A(?:{}{end}){tail}", self.translated), self.flags)?;
        Ok(cell.get_or_init(|| re))
    }

    /// The leftmost match at or after byte `pos`, skipping ahead to the literal prefix.
    fn search_from(&self, text: &PyStr, pos: usize) -> EResult<Option<MatchObj>> {
        let re = match &self.search {
            Searcher::LazyAhead(la) => {
                return Ok(la.search(text, pos)?.map(|span| MatchObj {
                    text: text.clone(),
                    spans: vec![Some(span)],
                    names: Vec::new(),
                }))
            }
            Searcher::General(re) => re,
        };
        let pos = match &self.prefix {
            Some(p) => match text[pos..].find(p.as_str()) {
                Some(i) => pos + i,
                None => return Ok(None),
            },
            None => pos,
        };
        self.captures(re, text, pos)
    }

    fn captures(&self, re: &Regex, text: &PyStr, pos: usize) -> EResult<Option<MatchObj>> {
        let caps = re.captures_from_pos(text, pos).map_err(|e| err(format!("regex failed: {e}")))?;
        Ok(caps.map(|c| MatchObj {
            text: text.clone(),
            spans: (0..=self.groups).map(|i| c.get(i).map(|m| (m.start(), m.end()))).collect(),
            names: self.names.clone(),
        }))
    }

    /// `search`/`match`/`fullmatch` on the whole text, charged to `ctx` (see
    /// `Pattern::charged_search`).
    pub fn run(&self, ctx: &mut Ctx, mode: Mode, text: &PyStr) -> EResult<Option<MatchObj>> {
        ctx.tick()?;
        affordable(ctx, text, 0)?;
        let m = match mode {
            Mode::Search => self.search_from(text, 0)?,
            Mode::Match => self.captures(self.anchored_form(&self.anchored, "")?, text, 0)?,
            Mode::Full => self.captures(self.anchored_form(&self.full, "\\z")?, text, 0)?,
        };
        self.charge_result(ctx, text, 0, &m)?;
        Ok(m)
    }

    /// Charges a search from byte `pos` for the text it examined: up to the furthest end of
    /// the match's groups (a lookahead reads past the match), or to the end of the text when
    /// nothing matched; and the memory of the match object.
    fn charge_result(&self, ctx: &mut Ctx, text: &str, pos: usize, m: &Option<MatchObj>) -> EResult<()> {
        let reached = match m {
            Some(m) => m.spans.iter().flatten().map(|&(_, e)| e).max().unwrap_or(pos),
            None => text.len(),
        };
        ctx.tick_n((reached.saturating_sub(pos) / REGEX_BYTES_PER_STEP) as u64)?;
        if let Some(m) = m {
            ctx.charge(64 + 16 * m.spans.len())?;
        }
        Ok(())
    }

    /// One search from byte `pos`, charged to `ctx`: a step before it runs, then the text it
    /// examined. One search is bounded on its own: linear in the text where the pattern
    /// needs no backtracking (fancy-regex hands it to the `regex` engine whole) and stopped by
    /// the backtrack limit otherwise.
    fn charged_search(&self, ctx: &mut Ctx, text: &PyStr, pos: usize) -> EResult<Option<MatchObj>> {
        ctx.tick()?;
        affordable(ctx, text, pos)?;
        let m = self.search_from(text, pos)?;
        self.charge_result(ctx, text, pos, &m)?;
        Ok(m)
    }

    /// All non-overlapping matches, Python style (an empty match right after a previous
    /// match is allowed only when that match was not empty); at most `limit` unless it is 0.
    /// Each search is charged to `ctx`, and with `groups_as_strings` the text of each match's
    /// groups too, as it is found (for callers that build those strings: the groups of
    /// overlapping lookahead matches can add up to far more than the text).
    pub fn all(&self, ctx: &mut Ctx, text: &PyStr, limit: usize, groups_as_strings: bool) -> EResult<Vec<MatchObj>> {
        let mut out = Vec::new();
        self.each(ctx, text, limit, groups_as_strings, &mut |_, m| {
            out.push(m);
            Ok(())
        })?;
        Ok(out)
    }

    /// [`Pattern::all`], handing each match to `f` as it is found (so that a caller that
    /// fails part way stops searching too).
    pub fn each(
        &self,
        ctx: &mut Ctx,
        text: &PyStr,
        limit: usize,
        groups_as_strings: bool,
        f: &mut dyn FnMut(&mut Ctx, MatchObj) -> EResult<()>,
    ) -> EResult<()> {
        let mut found = 0;
        let mut pos = 0;
        let mut forbid_empty_at: Option<usize> = None;
        while pos <= text.len() && (limit == 0 || found < limit) {
            let Some(m) = self.charged_search(ctx, text, pos)? else { break };
            let (s, e) = m.spans[0].unwrap_or((pos, pos));
            if s == e && forbid_empty_at == Some(s) {
                match text[s..].chars().next() {
                    Some(c) => {
                        pos = s + c.len_utf8();
                        forbid_empty_at = None;
                        continue;
                    }
                    None => break,
                }
            }
            pos = e;
            forbid_empty_at = if s == e { Some(e) } else { None };
            if groups_as_strings {
                ctx.charge(m.groups_len().saturating_add(16 * m.spans.len()))?;
            }
            found += 1;
            f(ctx, m)?;
        }
        Ok(())
    }
}

fn char_index(text: &str, byte: usize) -> i64 {
    text[..byte].chars().count() as i64
}

impl MatchObj {
    fn index_of(&self, g: &PyVal) -> EResult<usize> {
        match g {
            PyVal::Str(name) => {
                self.names.iter().find(|(n, _)| n.as_str() == &**name).map(|(_, i)| *i).ok_or_else(|| err("no such group"))
            }
            other => match other.as_int() {
                Some(i) if i >= 0 && (i as usize) < self.spans.len() => Ok(i as usize),
                _ => Err(err("no such group")),
            },
        }
    }

    /// The text of a group by index, `None` when it did not participate.
    pub fn group_str(&self, i: usize) -> Option<String> {
        self.spans.get(i).copied().flatten().map(|(s, e)| self.text[s..e].to_string())
    }

    /// Character span of a group.
    pub fn span(&self, i: usize) -> Option<(i64, i64)> {
        self.spans.get(i).copied().flatten().map(|(s, e)| (char_index(&self.text, s), char_index(&self.text, e)))
    }

    fn group_val(&self, i: usize, default: &PyVal) -> PyVal {
        match self.group_str(i) {
            Some(s) => PyVal::str(s),
            None => default.clone(),
        }
    }

    /// `m.group(*gs)`.
    pub fn group(&self, gs: &[PyVal]) -> EResult<PyVal> {
        match gs {
            [] => Ok(self.group_val(0, &PyVal::None)),
            [g] => Ok(self.group_val(self.index_of(g)?, &PyVal::None)),
            many => Ok(PyVal::tuple(
                many.iter().map(|g| Ok(self.group_val(self.index_of(g)?, &PyVal::None))).collect::<EResult<_>>()?,
            )),
        }
    }

    /// `m.groups(default=None)`.
    pub fn groups(&self, default: &PyVal) -> PyVal {
        PyVal::tuple((1..self.spans.len()).map(|i| self.group_val(i, default)).collect())
    }

    /// `m.groupdict(default=None)`.
    pub fn groupdict(&self, default: &PyVal) -> EResult<PyVal> {
        let mut d = super::value::Dict::new();
        for (n, i) in &self.names {
            let k = PyVal::str(n.as_str());
            d.insert(k.hkey()?, (k, self.group_val(*i, default)));
        }
        Ok(PyVal::Dict(Rc::new(d)))
    }

    /// `m.start(g)`, `m.end(g)`, `m.span(g)`: `-1` for a group that did not participate.
    pub fn pos(&self, what: &str, g: Option<&PyVal>) -> EResult<PyVal> {
        let i = match g {
            Some(g) => self.index_of(g)?,
            None => 0,
        };
        let (s, e) = self.span(i).unwrap_or((-1, -1));
        Ok(match what {
            "start" => PyVal::Int(s),
            "end" => PyVal::Int(e),
            _ => PyVal::tuple(vec![PyVal::Int(s), PyVal::Int(e)]),
        })
    }

    /// Expands a Python replacement template (`\1`, `\g<name>`, `\n`); errors when the
    /// expansion would be longer than `limit` bytes (checked before each group is copied).
    pub fn expand(&self, template: &str, limit: usize) -> EResult<String> {
        let too_long = || err(format!("re.sub: the replacement is longer than the {limit} bytes left in the memory budget"));
        let mut out = String::new();
        let push = |out: &mut String, piece: &str| -> EResult<()> {
            if out.len() + piece.len() > limit {
                return Err(too_long());
            }
            out.push_str(piece);
            Ok(())
        };
        let mut rest = template;
        while !rest.is_empty() {
            // Text up to the next backslash is copied as it is.
            let k = rest.find('\\').unwrap_or(rest.len());
            push(&mut out, &rest[..k])?;
            rest = &rest[k..];
            let mut chars = rest.chars();
            if chars.next().is_none() {
                break;
            }
            let Some(n) = chars.next() else {
                // A trailing backslash stays.
                push(&mut out, "\\")?;
                break;
            };
            rest = chars.as_str();
            match n {
                'n' => push(&mut out, "\n")?,
                't' => push(&mut out, "\t")?,
                'r' => push(&mut out, "\r")?,
                'f' => push(&mut out, "\x0c")?,
                'v' => push(&mut out, "\x0b")?,
                'a' => push(&mut out, "\x07")?,
                '\\' => push(&mut out, "\\")?,
                'g' => {
                    let end = rest.find('>').filter(|_| rest.starts_with('<')).ok_or_else(|| err("bad group name"))?;
                    let name = &rest[1..end];
                    let idx = match name.parse::<i64>() {
                        Ok(k) => self.index_of(&PyVal::Int(k))?,
                        Err(_) => self.index_of(&PyVal::str(name))?,
                    };
                    push(&mut out, self.group_text(idx))?;
                    rest = &rest[end + 1..];
                }
                d if d.is_ascii_digit() => {
                    let mut num = d.to_digit(10).unwrap_or(0) as usize;
                    if let Some(d2) = rest.chars().next().filter(|c| c.is_ascii_digit()) {
                        if num * 10 < self.spans.len() {
                            num = num * 10 + d2.to_digit(10).unwrap_or(0) as usize;
                            rest = &rest[1..];
                        }
                    }
                    if num >= self.spans.len() {
                        return Err(err(format!("invalid group reference {num}")));
                    }
                    push(&mut out, self.group_text(num))?;
                }
                c if c.is_ascii_alphabetic() => return Err(err(format!("bad escape \\{c}"))),
                c => {
                    push(&mut out, "\\")?;
                    push(&mut out, c.encode_utf8(&mut [0; 4]))?;
                }
            }
        }
        Ok(out)
    }

    /// The text of a group, empty when it did not participate.
    fn group_text(&self, i: usize) -> &str {
        self.spans.get(i).copied().flatten().map_or("", |(s, e)| &self.text[s..e])
    }

    /// Length in bytes of a group's text (0 when it did not participate).
    pub fn group_len(&self, i: usize) -> usize {
        self.spans.get(i).copied().flatten().map_or(0, |(s, e)| e - s)
    }

    /// Length in bytes of the text of every group and of the whole match.
    fn groups_len(&self) -> usize {
        (0..self.spans.len()).map(|i| self.group_len(i)).fold(0, usize::saturating_add)
    }
}

/// `findall`: whole matches, the single group, or tuples of groups. The strings are
/// charged to `ctx` before any is built (groups of overlapping matches, as in `(?=(a+))`, can
/// add up to much more than the text).
pub fn findall(ctx: &mut Ctx, p: &Pattern, text: &PyStr) -> EResult<Vec<PyVal>> {
    let matches = p.all(ctx, text, 0, true)?;
    ctx.charge_items(matches.len().saturating_mul(p.groups().max(1)))?;
    let empty = PyVal::str("");
    Ok(matches
        .into_iter()
        .map(|m| match p.groups() {
            0 => m.group_val(0, &empty),
            1 => m.group_val(1, &empty),
            _ => m.groups(&empty),
        })
        .collect())
}

/// `split`: pieces between matches, with the groups interleaved; charged to `ctx` before the
/// strings are built.
pub fn split(ctx: &mut Ctx, p: &Pattern, text: &PyStr, maxsplit: usize) -> EResult<Vec<PyVal>> {
    let matches = p.all(ctx, text, maxsplit, true)?;
    ctx.charge(text.len())?;
    ctx.charge_items(matches.len().saturating_mul(p.groups() + 1) + 1)?;
    let mut out = Vec::new();
    let mut last = 0;
    for m in matches {
        let (s, e) = m.spans[0].unwrap_or((0, 0));
        out.push(PyVal::str(&text[last..s]));
        for g in 1..m.spans.len() {
            out.push(m.group_val(g, &PyVal::None));
        }
        last = e;
    }
    out.push(PyVal::str(&text[last..]));
    Ok(out)
}

/// `sub` with a per-match replacement (`repl`: a template expansion or a function): each
/// piece is charged to `ctx` before it is appended, so the result never grows past the
/// memory budget.
pub fn sub(
    ctx: &mut Ctx,
    p: &Pattern,
    text: &PyStr,
    count: usize,
    repl: &mut dyn FnMut(&mut Ctx, Rc<MatchObj>) -> EResult<String>,
) -> EResult<String> {
    let mut out = String::new();
    let mut last = 0;
    p.each(ctx, text, count, false, &mut |ctx, m| {
        let (s, e) = m.spans[0].unwrap_or((0, 0));
        let r = repl(ctx, Rc::new(m))?;
        ctx.charge(s - last + r.len())?;
        ctx.tick_text(s - last + r.len())?;
        reserve_within_budget(&mut out, s - last + r.len(), ctx);
        out.push_str(&text[last..s]);
        out.push_str(&r);
        last = e;
        Ok(())
    })?;
    ctx.charge(text.len() - last + 16)?;
    out.push_str(&text[last..]);
    Ok(out)
}

/// Checks, before a search from byte `pos` runs, that the budget could pay for it reading the
/// whole rest of the text (a search that finds nothing does), so that no search starts that
/// the step budget cannot cover. Only the text it does read is charged afterwards.
fn affordable(ctx: &Ctx, text: &str, pos: usize) -> EResult<()> {
    let rest = text.len().saturating_sub(pos);
    ctx.afford((rest / REGEX_BYTES_PER_STEP) as u64, &format!("a regex search over {rest} bytes"))
}

/// Makes room in `out` for `more` bytes (already charged to `ctx`). Past 64 KiB the buffer is
/// sized once for all the budget still allows: its untouched pages take no memory, and the
/// result is never copied into a larger buffer, so a result near the budget costs its size
/// (growing by doubling left the smaller buffers behind, about as much again).
fn reserve_within_budget(out: &mut String, more: usize, ctx: &Ctx) {
    let need = out.len() + more;
    if need > out.capacity() {
        let target = if need <= 64 * 1024 { need.max(out.capacity() * 2).min(64 * 1024).max(need) } else { need + ctx.bytes_left() };
        out.reserve_exact(target - out.len());
    }
}

/// The text of a str argument, erroring for other types.
pub fn text_arg(v: &PyVal, what: &str) -> EResult<PyStr> {
    match v {
        PyVal::Str(s) => Ok(s.clone()),
        other => Err(err(format!("{what}: expected string, got '{}' ({})", other.type_name(), to_str(other)))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test_ctx() -> Ctx<'static> {
        Ctx::with_limits(None, crate::expr::eval::Limits::default())
    }

    #[test]
    fn literal_prefix_only_when_every_match_starts_with_it() {
        assert_eq!(literal_prefix(r"assert.*?(?=\n\s*assert|$)", DOTALL).as_deref(), Some("assert"));
        assert_eq!(literal_prefix("abc*d", 0).as_deref(), Some("ab"));
        assert_eq!(literal_prefix("a{2}", 0), None);
        assert_eq!(literal_prefix("ab|cd", 0), None);
        assert_eq!(literal_prefix("ab(c|d)", 0).as_deref(), Some("ab"));
        assert_eq!(literal_prefix("ab[|]c", 0).as_deref(), Some("ab"));
        assert_eq!(literal_prefix(r"ab\|c", 0).as_deref(), Some("ab"));
        assert_eq!(literal_prefix("ab", IGNORECASE), None);
        assert_eq!(literal_prefix("(?i)ab", 0), None);
        assert_eq!(literal_prefix(r"\d+", 0), None);
        assert_eq!(literal_prefix("é?x", 0), None);
        assert_eq!(literal_prefix("éx?", 0).as_deref(), Some("é"));
    }

    /// Spans of all matches by the general matcher (the fast path switched off).
    fn general_spans(src: &str, flags: i64, text: &PyStr) -> Vec<(usize, usize)> {
        let p = compile(src, flags).unwrap();
        let slow = Pattern {
            source: p.source.clone(),
            flags,
            search: Searcher::General(build(&p.translated, flags).unwrap()),
            translated: p.translated.clone(),
            anchored: OnceCell::new(),
            full: OnceCell::new(),
            prefix: p.prefix.clone(),
            names: Vec::new(),
            groups: 0,
        };
        slow.all(&mut test_ctx(), text, 0, false).unwrap().iter().map(|m| m.spans[0].unwrap()).collect()
    }

    #[test]
    fn lazy_lookahead_shape_matches_the_general_matcher() {
        let shaped = [
            (r"assert.*?(?=\n\s*assert|$)", DOTALL),
            (r"assert.*?(?=\n\s*assert|$)", 0),
            (r"ab.*?(?=[;,]|$)", 0),
            (r"ab.*?(?=c\d)", DOTALL),
            (r"ab.*?(?=c.d)", DOTALL),
            (r"ab.*?(?=c.d)", 0),
            (r"x.*?(?=$|y)", MULTILINE),
        ];
        let texts = [
            "x assert a == 1\n  assert b\nassertion",
            "assert f(1)\n\n    assert g(2) == 'é'\n",
            "assert x\nmore\nassert y\n\n",
            "abab;ab\nxx,ab c1 ab\nc2",
            "ab c\nd ab cxd\nab\nc\nd",
            "x1\ny2 x3y x\n",
            "",
            "no match here",
        ];
        for (src, flags) in shaped {
            assert!(matches!(compile(src, flags).unwrap().search, Searcher::LazyAhead(_)), "{src}");
            for t in texts {
                let text: PyStr = t.into();
                let fast: Vec<_> = compile(src, flags).unwrap().all(&mut test_ctx(), &text, 0, false).unwrap().iter().map(|m| m.spans[0].unwrap()).collect();
                assert_eq!(fast, general_spans(src, flags, &text), "{src} on {t:?}");
            }
        }
        for (src, flags) in [(r"a.*?(?=(b))", 0), (r"a.*?(?=b$c)", 0), (r"a.*?(?=b)x", 0), (r"a.*(?=b)", 0), ("a.*?(?=b)", IGNORECASE)] {
            assert!(matches!(compile(src, flags).unwrap().search, Searcher::General(_)), "{src}");
        }
    }

    #[test]
    fn findall_with_a_prefix_matches_the_plain_scan() {
        let text: PyStr = "x assert a == 1\n  assert b\nassertion".into();
        let p = compile(r"assert.*?(?=\n\s*assert|$)", DOTALL).unwrap();
        let spans: Vec<_> = p.all(&mut test_ctx(), &text, 0, false).unwrap().iter().map(|m| m.spans[0].unwrap()).collect();
        assert_eq!(spans, vec![(2, 15), (18, 26), (27, 36)]);
        let none: PyStr = "no match here".into();
        assert!(p.run(&mut test_ctx(), Mode::Search, &none).unwrap().is_none());
        let m = compile("ab", 0).unwrap();
        assert!(m.run(&mut test_ctx(), Mode::Match, &"xab".into()).unwrap().is_none());
        assert!(m.run(&mut test_ctx(), Mode::Full, &"ab".into()).unwrap().is_some());
    }
}
