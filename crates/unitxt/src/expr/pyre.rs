//! Python's `re` module on top of `fancy-regex` (backtracking, so look-around and
//! back-references work). Python-only syntax is translated: `(?P=name)`, `\Z`, and `$` without
//! MULTILINE (which in Python also matches before a final newline). Positions reported to the
//! expression are in characters, as in Python.

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use fancy_regex::{Regex, RegexBuilder};

use super::value::{PyVal, to_str};
use super::{err, EResult};

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
    pub source: Rc<str>,
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
    fn search(&self, text: &str, mut pos: usize) -> EResult<Option<(usize, usize)>> {
        while let Some(i) = text[pos..].find(self.literal.as_str()) {
            let s = pos + i;
            let e = s + self.literal.len();
            let limit = if self.dotall { text.len() } else { text[e..].find('\n').map_or(text.len(), |k| e + k) };
            match self.ahead.find_from_pos(text, e).map_err(|x| err(format!("regex failed: {x}")))? {
                Some(m) if m.start() <= limit => return Ok(Some((s, m.start()))),
                // With DOTALL every later start ends its search inside this one: no match.
                None if self.dotall => return Ok(None),
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
    pub text: Rc<str>,
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
    fn search_from(&self, text: &Rc<str>, pos: usize) -> EResult<Option<MatchObj>> {
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

    fn captures(&self, re: &Regex, text: &Rc<str>, pos: usize) -> EResult<Option<MatchObj>> {
        let caps = re.captures_from_pos(text, pos).map_err(|e| err(format!("regex failed: {e}")))?;
        Ok(caps.map(|c| MatchObj {
            text: text.clone(),
            spans: (0..=self.groups).map(|i| c.get(i).map(|m| (m.start(), m.end()))).collect(),
            names: self.names.clone(),
        }))
    }

    /// `search`/`match`/`fullmatch` on the whole text.
    pub fn run(&self, mode: Mode, text: &Rc<str>) -> EResult<Option<MatchObj>> {
        let re = match mode {
            Mode::Search => return self.search_from(text, 0),
            Mode::Match => self.anchored_form(&self.anchored, "")?,
            Mode::Full => self.anchored_form(&self.full, "\\z")?,
        };
        self.captures(re, text, 0)
    }

    /// All non-overlapping matches, Python style (an empty match right after a previous
    /// match is allowed only when that match was not empty).
    pub fn all(&self, text: &Rc<str>, limit: usize) -> EResult<Vec<MatchObj>> {
        let mut out = Vec::new();
        let mut pos = 0;
        let mut forbid_empty_at: Option<usize> = None;
        while pos <= text.len() && (limit == 0 || out.len() < limit) {
            let Some(m) = self.search_from(text, pos)? else { break };
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
            out.push(m);
        }
        Ok(out)
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

    /// Expands a Python replacement template (`\1`, `\g<name>`, `\n`).
    pub fn expand(&self, template: &str) -> EResult<String> {
        let chars: Vec<char> = template.chars().collect();
        let mut out = String::new();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c != '\\' || i + 1 == chars.len() {
                out.push(c);
                i += 1;
                continue;
            }
            let n = chars[i + 1];
            i += 2;
            match n {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                'f' => out.push('\x0c'),
                'v' => out.push('\x0b'),
                'a' => out.push('\x07'),
                '\\' => out.push('\\'),
                'g' => {
                    let rest: String = chars[i..].iter().collect();
                    let end = rest.find('>').filter(|_| rest.starts_with('<')).ok_or_else(|| err("bad group name"))?;
                    let name = &rest[1..end];
                    let idx = match name.parse::<i64>() {
                        Ok(k) => self.index_of(&PyVal::Int(k))?,
                        Err(_) => self.index_of(&PyVal::str(name))?,
                    };
                    out.push_str(&self.group_str(idx).unwrap_or_default());
                    i += name.chars().count() + 2;
                }
                d if d.is_ascii_digit() => {
                    let mut num = d.to_digit(10).unwrap_or(0) as usize;
                    if i < chars.len() && chars[i].is_ascii_digit() && num * 10 < self.spans.len() {
                        num = num * 10 + chars[i].to_digit(10).unwrap_or(0) as usize;
                        i += 1;
                    }
                    if num >= self.spans.len() {
                        return Err(err(format!("invalid group reference {num}")));
                    }
                    out.push_str(&self.group_str(num).unwrap_or_default());
                }
                c if c.is_ascii_alphabetic() => return Err(err(format!("bad escape \\{c}"))),
                c => {
                    out.push('\\');
                    out.push(c);
                }
            }
        }
        Ok(out)
    }
}

/// `findall`: whole matches, the single group, or tuples of groups.
pub fn findall(p: &Pattern, text: &Rc<str>) -> EResult<Vec<PyVal>> {
    let empty = PyVal::str("");
    Ok(p.all(text, 0)?
        .into_iter()
        .map(|m| match p.groups() {
            0 => m.group_val(0, &empty),
            1 => m.group_val(1, &empty),
            _ => m.groups(&empty),
        })
        .collect())
}

/// `split`: pieces between matches, with the groups interleaved.
pub fn split(p: &Pattern, text: &Rc<str>, maxsplit: usize) -> EResult<Vec<PyVal>> {
    let mut out = Vec::new();
    let mut last = 0;
    for m in p.all(text, maxsplit)? {
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

/// `sub` with a template string or a per-match function (`repl_fn`).
pub fn sub(
    p: &Pattern,
    text: &Rc<str>,
    count: usize,
    mut repl: impl FnMut(Rc<MatchObj>) -> EResult<String>,
) -> EResult<String> {
    let mut out = String::new();
    let mut last = 0;
    for m in p.all(text, count)? {
        let (s, e) = m.spans[0].unwrap_or((0, 0));
        out.push_str(&text[last..s]);
        out.push_str(&repl(Rc::new(m))?);
        last = e;
    }
    out.push_str(&text[last..]);
    Ok(out)
}

/// The text of a str argument, erroring for other types.
pub fn text_arg(v: &PyVal, what: &str) -> EResult<Rc<str>> {
    match v {
        PyVal::Str(s) => Ok(s.clone()),
        other => Err(err(format!("{what}: expected string, got '{}' ({})", other.type_name(), to_str(other)))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn general_spans(src: &str, flags: i64, text: &Rc<str>) -> Vec<(usize, usize)> {
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
        slow.all(text, 0).unwrap().iter().map(|m| m.spans[0].unwrap()).collect()
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
                let text: Rc<str> = t.into();
                let fast: Vec<_> = compile(src, flags).unwrap().all(&text, 0).unwrap().iter().map(|m| m.spans[0].unwrap()).collect();
                assert_eq!(fast, general_spans(src, flags, &text), "{src} on {t:?}");
            }
        }
        for (src, flags) in [(r"a.*?(?=(b))", 0), (r"a.*?(?=b$c)", 0), (r"a.*?(?=b)x", 0), (r"a.*(?=b)", 0), ("a.*?(?=b)", IGNORECASE)] {
            assert!(matches!(compile(src, flags).unwrap().search, Searcher::General(_)), "{src}");
        }
    }

    #[test]
    fn findall_with_a_prefix_matches_the_plain_scan() {
        let text: Rc<str> = "x assert a == 1\n  assert b\nassertion".into();
        let p = compile(r"assert.*?(?=\n\s*assert|$)", DOTALL).unwrap();
        let spans: Vec<_> = p.all(&text, 0).unwrap().iter().map(|m| m.spans[0].unwrap()).collect();
        assert_eq!(spans, vec![(2, 15), (18, 26), (27, 36)]);
        let none: Rc<str> = "no match here".into();
        assert!(p.run(Mode::Search, &none).unwrap().is_none());
        let m = compile("ab", 0).unwrap();
        assert!(m.run(Mode::Match, &"xab".into()).unwrap().is_none());
        assert!(m.run(Mode::Full, &"ab".into()).unwrap().is_some());
    }
}
