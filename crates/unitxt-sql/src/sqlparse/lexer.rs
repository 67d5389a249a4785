//! sqlparse's lexer (`sqlparse.lexer.Lexer` with its default `keywords.SQL_REGEX` rules).
//!
//! sqlparse tries an ordered list of Python regular expressions (flags `IGNORECASE | UNICODE`)
//! at every position and emits the token type of the first one that matches; a position where
//! none matches becomes a one-character `Token.Error`. Each rule is written out here as a small
//! hand matcher that returns the end Python's backtracking engine would find, so lookarounds,
//! lazy and greedy repetition and the case-insensitive letter rules behave as in Python's `re`.

use super::keywords::KEYWORDS;
use super::tables::{DECIMAL, WORD};

/// The token types (`sqlparse.tokens`) the lexer produces, with their place in sqlparse's type
/// hierarchy (see [`TType::parent`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum TType {
    /// `Token.Text`
    Text,
    /// `Token.Text.Whitespace`
    Whitespace,
    /// `Token.Text.Whitespace.Newline`
    Newline,
    /// `Token.Error`: a character no rule matches.
    Error,
    /// `Token.Keyword`
    Keyword,
    /// `Token.Keyword.DML` (`SELECT`, `INSERT`, ...)
    Dml,
    /// `Token.Keyword.DDL` (`CREATE`, `DROP`, ...)
    Ddl,
    /// `Token.Keyword.DCL` (`GRANT`, `REVOKE`)
    Dcl,
    /// `Token.Keyword.CTE` (`WITH`)
    Cte,
    /// `Token.Keyword.Order` (`ASC`, `DESC`, `NULLS FIRST`, ...)
    Order,
    /// `Token.Keyword.TZCast` (`AT TIME ZONE '...'`)
    TzCast,
    /// `Token.Name`
    Name,
    /// `Token.Name.Placeholder`
    Placeholder,
    /// `Token.Name.Builtin` (type names such as `INT`, `DATE`)
    NameBuiltin,
    /// `Token.Literal` (dollar-quoted strings)
    Literal,
    /// `Token.Literal.String`
    String,
    /// `Token.Literal.String.Single`
    StringSingle,
    /// `Token.Literal.String.Symbol` (double-quoted)
    StringSymbol,
    /// `Token.Literal.Number`
    Number,
    /// `Token.Literal.Number.Hexadecimal`
    Hexadecimal,
    /// `Token.Literal.Number.Float`
    Float,
    /// `Token.Literal.Number.Integer`
    Integer,
    /// `Token.Punctuation`
    Punctuation,
    /// `Token.Operator`
    Operator,
    /// `Token.Operator.Comparison`
    Comparison,
    /// `Token.Wildcard`
    Wildcard,
    /// `Token.Comment`
    Comment,
    /// `Token.Comment.Single`
    CommentSingle,
    /// `Token.Comment.Single.Hint`
    CommentSingleHint,
    /// `Token.Comment.Multiline`
    CommentMultiline,
    /// `Token.Comment.Multiline.Hint`
    CommentMultilineHint,
    /// `Token.Assignment`
    Assignment,
    /// `Token.Generic`
    Generic,
    /// `Token.Generic.Command`
    Command,
}

impl TType {
    /// The parent type in sqlparse's hierarchy (`None` for direct children of `Token`).
    pub fn parent(self) -> Option<TType> {
        use TType::*;
        Some(match self {
            Whitespace => Text,
            Newline => Whitespace,
            Dml | Ddl | Dcl | Cte | Order | TzCast => Keyword,
            Placeholder | NameBuiltin => Name,
            String | Number => Literal,
            StringSingle | StringSymbol => String,
            Hexadecimal | Float | Integer => Number,
            Comparison => Operator,
            CommentSingle | CommentMultiline => Comment,
            CommentSingleHint => CommentSingle,
            CommentMultilineHint => CommentMultiline,
            Command => Generic,
            Text | Error | Keyword | Name | Literal | Punctuation | Operator | Wildcard | Comment | Assignment
            | Generic => return None,
        })
    }

    /// sqlparse's `self in ancestor`: this type is `ancestor` or one of its descendants.
    pub fn is_a(self, ancestor: TType) -> bool {
        let mut t = Some(self);
        while let Some(x) = t {
            if x == ancestor {
                return true;
            }
            t = x.parent();
        }
        false
    }
}

fn in_ranges(table: &[(u32, u32)], c: char) -> bool {
    let c = c as u32;
    table
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                std::cmp::Ordering::Less
            } else if lo > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// Python `re`'s `\w` (Unicode): `str.isalnum()` or `_`.
pub(crate) fn is_word(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    in_ranges(WORD, c)
}

/// Python `re`'s `\d` (Unicode): `str.isdecimal()`.
fn is_decimal(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    in_ranges(DECIMAL, c)
}

/// Python's `str.isspace()`, which is also `re`'s `\s`.
pub(crate) fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// The class `[A-ZÀ-Ü]` under `IGNORECASE`: Python also folds in the lower-case letters, the
/// dotted and dotless i, the long s, the Kelvin sign and the Angstrom sign.
fn is_letter(c: char) -> bool {
    matches!(c, 'A'..='Z' | 'a'..='z' | '\u{C0}'..='\u{DC}' | '\u{E0}'..='\u{F6}' | '\u{F8}'..='\u{FC}')
        || matches!(c, '\u{130}' | '\u{131}' | '\u{17F}' | '\u{212A}' | '\u{212B}')
}

/// `[_A-ZÀ-Ü]` under `IGNORECASE`.
fn is_letter_or_underscore(c: char) -> bool {
    c == '_' || is_letter(c)
}

/// Whether text character `c` matches pattern character `p` under Python's `IGNORECASE`
/// (for ASCII letters: both cases, plus the non-ASCII characters that fold to them).
fn ci_eq(c: char, p: char) -> bool {
    if !p.is_ascii_alphabetic() {
        return c == p;
    }
    let up = p.to_ascii_uppercase();
    if c.to_ascii_uppercase() == up && c.is_ascii() {
        return true;
    }
    matches!((up, c), ('I', '\u{130}') | ('I', '\u{131}') | ('K', '\u{212A}') | ('S', '\u{17F}'))
}

/// Python's simple (one-character) lower-case mapping, which `re` uses to compare a
/// back-reference case-insensitively.
fn simple_lower(c: char) -> char {
    if c == '\u{130}' {
        return 'i';
    }
    let mut it = c.to_lowercase();
    match (it.next(), it.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

struct Scan<'a> {
    s: &'a [char],
}

impl Scan<'_> {
    fn at(&self, i: usize) -> Option<char> {
        self.s.get(i).copied()
    }

    fn is(&self, i: usize, c: char) -> bool {
        self.at(i) == Some(c)
    }

    /// A literal word (pattern letters compared case-insensitively) at `i`; the end on success.
    fn word(&self, i: usize, w: &str) -> Option<usize> {
        let mut j = i;
        for p in w.chars() {
            match self.at(j) {
                Some(c) if ci_eq(c, p) => j += 1,
                _ => return None,
            }
        }
        Some(j)
    }

    /// `\s+` (greedy) at `i`.
    fn spaces1(&self, i: usize) -> Option<usize> {
        let j = self.run(i, is_space);
        (j > i).then_some(j)
    }

    /// The end of the longest run of characters satisfying `f` from `i`.
    fn run(&self, i: usize, f: impl Fn(char) -> bool) -> usize {
        let mut j = i;
        while self.at(j).is_some_and(&f) {
            j += 1;
        }
        j
    }

    /// `\b` at `i` (word characters by Python's Unicode `\w`).
    fn boundary(&self, i: usize) -> bool {
        let before = i > 0 && self.at(i - 1).is_some_and(is_word);
        let after = self.at(i).is_some_and(is_word);
        before != after
    }

    /// A word followed by `\b`.
    fn word_b(&self, i: usize, w: &str) -> Option<usize> {
        self.word(i, w).filter(|&e| self.boundary(e))
    }

    /// `w1\s+w2\b`.
    fn two_words(&self, i: usize, w1: &str, w2: &str) -> Option<usize> {
        let e = self.word(i, w1)?;
        let e = self.spaces1(e)?;
        self.word_b(e, w2)
    }

    /// `.*?(\r\n|\r|\n|$)` from `i`: up to and including the first line break, or to the end.
    fn line_end(&self, i: usize) -> usize {
        let mut k = i;
        loop {
            match self.at(k) {
                None => return k,
                Some('\r') => return if self.is(k + 1, '\n') { k + 2 } else { k + 1 },
                Some('\n') => return k + 1,
                Some(_) => k += 1,
            }
        }
    }

    /// `[\s\S]*?\*/` from `i`: the end of the first `*/` at or after `i`.
    fn block_end(&self, i: usize) -> Option<usize> {
        let mut k = i;
        while k + 1 < self.s.len() {
            if self.s[k] == '*' && self.s[k + 1] == '/' {
                return Some(k + 2);
            }
            k += 1;
        }
        None
    }

    /// `(--|# )` at `i`.
    fn line_comment_start(&self, i: usize) -> bool {
        (self.is(i, '-') && self.is(i + 1, '-')) || (self.is(i, '#') && self.is(i + 1, ' '))
    }

    /// The last index holding `q` (for deciding whether a quoted rule can still close).
    fn last_index_of(&self, q: char) -> Option<usize> {
        self.s.iter().rposition(|&c| c == q)
    }

    /// `Q(QQ|[^Q])*Q` at `p` (the back-quoted name rules), with Python's backtracking result.
    fn doubled_quote(&self, p: usize, q: char) -> Option<usize> {
        if !self.is(p, q) {
            return None;
        }
        let last = self.last_index_of(q)?;
        if last < p + 1 {
            return None;
        }
        let mut i = p + 1;
        loop {
            if self.s[i] == q {
                if self.is(i + 1, q) && last >= i + 2 {
                    i += 2;
                } else {
                    return Some(i + 1);
                }
            } else {
                i += 1;
            }
        }
    }

    /// `Q(QQ|\\Q|[^Q])*Q` at `p` (the single- and double-quoted string rules).
    fn escaped_quote(&self, p: usize, q: char) -> Option<usize> {
        if !self.is(p, q) {
            return None;
        }
        let last = self.last_index_of(q)?;
        if last < p + 1 {
            return None;
        }
        let mut i = p + 1;
        loop {
            let c = self.s[i];
            if c == q {
                if self.is(i + 1, q) && last >= i + 2 {
                    i += 2;
                } else {
                    return Some(i + 1);
                }
            } else if c == '\\' && self.is(i + 1, q) {
                if last >= i + 2 {
                    i += 2;
                } else {
                    return Some(i + 2);
                }
            } else {
                i += 1;
            }
        }
    }

    /// `((?<![\w\"\$])\$(?:[_A-ZÀ-Ü]\w*)?\$)[\s\S]*?\1`: a dollar-quoted literal.
    fn dollar_quoted(&self, p: usize) -> Option<usize> {
        if !self.is(p, '$') {
            return None;
        }
        if p > 0 {
            let prev = self.s[p - 1];
            if is_word(prev) || prev == '"' || prev == '$' {
                return None;
            }
        }
        let i = p + 1;
        let tag_end = match self.at(i) {
            Some('$') => i,
            Some(c) if is_letter_or_underscore(c) => {
                let j = self.run(i + 1, is_word);
                if self.is(j, '$') {
                    j
                } else {
                    return None;
                }
            }
            _ => return None,
        };
        let delim = &self.s[p..=tag_end];
        let n = self.s.len();
        let mut q = tag_end + 1;
        while q + delim.len() <= n {
            if delim.iter().zip(&self.s[q..]).all(|(&a, &b)| simple_lower(a) == simple_lower(b)) {
                return Some(q + delim.len());
            }
            q += 1;
        }
        None
    }

    /// `(LEFT\s+|RIGHT\s+|FULL\s+)?(INNER\s+|OUTER\s+|STRAIGHT\s+)?` or `(CROSS\s+|NATURAL\s+)?`,
    /// then `JOIN\b`. At most one way of consuming the prefix can reach a `JOIN`.
    fn join(&self, p: usize) -> Option<usize> {
        let word_ws =
            |i: usize, words: &[&str]| words.iter().find_map(|w| self.word(i, w).and_then(|e| self.spaces1(e)));
        let a = word_ws(p, &["LEFT", "RIGHT", "FULL"]);
        if let Some(a) = a {
            if let Some(b) = word_ws(a, &["INNER", "OUTER", "STRAIGHT"]) {
                if let Some(e) = self.word_b(b, "JOIN") {
                    return Some(e);
                }
            }
            if let Some(e) = self.word_b(a, "JOIN") {
                return Some(e);
            }
        }
        if let Some(b) = word_ws(p, &["INNER", "OUTER", "STRAIGHT"]) {
            if let Some(e) = self.word_b(b, "JOIN") {
                return Some(e);
            }
        }
        if let Some(c) = word_ws(p, &["CROSS", "NATURAL"]) {
            if let Some(e) = self.word_b(c, "JOIN") {
                return Some(e);
            }
        }
        self.word_b(p, "JOIN")
    }

    /// `-?0x[\dA-F]+`
    fn hexadecimal(&self, p: usize) -> Option<usize> {
        let q = if self.is(p, '-') { p + 1 } else { p };
        if !self.is(q, '0') || !self.at(q + 1).is_some_and(|c| c == 'x' || c == 'X') {
            return None;
        }
        let e = self.run(q + 2, |c| is_decimal(c) || matches!(c, 'a'..='f' | 'A'..='F'));
        (e > q + 2).then_some(e)
    }

    /// `-?\d+(\.\d+)?E-?\d+`
    fn float_exponent(&self, p: usize) -> Option<usize> {
        let q = if self.is(p, '-') { p + 1 } else { p };
        let r = self.run(q, is_decimal);
        if r == q {
            return None;
        }
        let exponent = |i: usize| -> Option<usize> {
            if !self.at(i).is_some_and(|c| c == 'e' || c == 'E') {
                return None;
            }
            let j = if self.is(i + 1, '-') && self.at(i + 2).is_some_and(is_decimal) { i + 2 } else { i + 1 };
            let e = self.run(j, is_decimal);
            (e > j).then_some(e)
        };
        if self.is(r, '.') {
            let f = self.run(r + 1, is_decimal);
            if f > r + 1 {
                if let Some(e) = exponent(f) {
                    return Some(e);
                }
            }
        }
        exponent(r)
    }

    /// Whether the lookahead `(?![_A-ZÀ-Ü])` holds at `i`.
    fn not_letter_at(&self, i: usize) -> bool {
        !self.at(i).is_some_and(is_letter_or_underscore)
    }

    /// `(?![_A-ZÀ-Ü])-?(\d+(\.\d*)|\.\d+)(?![_A-ZÀ-Ü])`
    fn float(&self, p: usize) -> Option<usize> {
        if !self.not_letter_at(p) {
            return None;
        }
        let q = if self.is(p, '-') { p + 1 } else { p };
        let k = self.run(q, is_decimal);
        if k > q {
            if self.is(k, '.') {
                let e = self.run(k + 1, is_decimal);
                if self.not_letter_at(e) {
                    return Some(e);
                }
                if e > k + 1 {
                    return Some(e - 1);
                }
            }
            return None;
        }
        if self.is(q, '.') {
            let e = self.run(q + 1, is_decimal);
            if e > q + 1 {
                if self.not_letter_at(e) {
                    return Some(e);
                }
                if e > q + 2 {
                    return Some(e - 1);
                }
            }
        }
        None
    }

    /// `(?![_A-ZÀ-Ü])-?\d+(?![_A-ZÀ-Ü])`
    fn integer(&self, p: usize) -> Option<usize> {
        if !self.not_letter_at(p) {
            return None;
        }
        let q = if self.is(p, '-') { p + 1 } else { p };
        let e = self.run(q, is_decimal);
        if e == q {
            return None;
        }
        if self.not_letter_at(e) {
            Some(e)
        } else if e > q + 1 {
            Some(e - 1)
        } else {
            None
        }
    }

    /// `(NOT\s+)?` followed by `rest`: first with the `NOT`, then without it.
    fn optional_not(&self, p: usize, rest: impl Fn(usize) -> Option<usize>) -> Option<usize> {
        if let Some(e) = self.word(p, "NOT").and_then(|e| self.spaces1(e)) {
            if let Some(e) = rest(e) {
                return Some(e);
            }
        }
        rest(p)
    }

    /// The first rule of `SQL_REGEX` that matches at `p`: its token type (`None` for the
    /// keyword-lookup rule) and the match end.
    fn rule(&self, p: usize) -> Option<(Option<TType>, usize)> {
        use TType as T;
        let s = self;
        let c = s.s[p];
        let some = |t: TType, e: usize| Some((Some(t), e));

        if s.line_comment_start(p) && s.is(p + 2, '+') {
            return some(T::CommentSingleHint, s.line_end(p + 3));
        }
        if c == '/' && s.is(p + 1, '*') && s.is(p + 2, '+') {
            if let Some(e) = s.block_end(p + 3) {
                return some(T::CommentMultilineHint, e);
            }
        }
        if s.line_comment_start(p) {
            return some(T::CommentSingle, s.line_end(p + 2));
        }
        if c == '/' && s.is(p + 1, '*') {
            if let Some(e) = s.block_end(p + 2) {
                return some(T::CommentMultiline, e);
            }
        }
        if c == '\r' {
            return some(T::Newline, if s.is(p + 1, '\n') { p + 2 } else { p + 1 });
        }
        if c == '\n' {
            return some(T::Newline, p + 1);
        }
        if is_space(c) {
            return some(T::Whitespace, p + 1);
        }
        if c == ':' && s.is(p + 1, '=') {
            return some(T::Assignment, p + 2);
        }
        if c == ':' && s.is(p + 1, ':') {
            return some(T::Punctuation, p + 2);
        }
        if c == '*' {
            return some(T::Wildcard, p + 1);
        }
        if let Some(e) = s.doubled_quote(p, '`') {
            return some(T::Name, e);
        }
        if let Some(e) = s.doubled_quote(p, '´') {
            return some(T::Name, e);
        }
        if let Some(e) = s.dollar_quoted(p) {
            return some(T::Literal, e);
        }
        if c == '?' {
            return some(T::Placeholder, p + 1);
        }
        if c == '%' {
            if s.is(p + 1, '(') {
                let j = s.run(p + 2, is_word);
                if j > p + 2 && s.is(j, ')') && s.at(j + 1).is_some_and(|x| ci_eq(x, 's')) {
                    return some(T::Placeholder, j + 2);
                }
            }
            if s.at(p + 1).is_some_and(|x| ci_eq(x, 's')) {
                return some(T::Placeholder, p + 2);
            }
        }
        if matches!(c, '$' | ':' | '?') && (p == 0 || !is_word(s.s[p - 1])) {
            let e = s.run(p + 1, is_word);
            if e > p + 1 {
                return some(T::Placeholder, e);
            }
        }
        if c == '\\' {
            let e = s.run(p + 1, is_word);
            if e > p + 1 {
                return some(T::Command, e);
            }
        }
        for w in ["CASE", "IN", "VALUES", "USING", "FROM", "AS"] {
            if let Some(e) = s.word_b(p, w) {
                return some(T::Keyword, e);
            }
        }
        for prefix in ["@", "##", "#"] {
            if let Some(i) = s.word(p, prefix) {
                if s.at(i).is_some_and(is_letter) {
                    let e = s.run(i + 1, is_word);
                    if e > i + 1 {
                        return some(T::Name, e);
                    }
                }
            }
        }
        if is_letter(c) {
            let e = s.run(p + 1, is_word);
            let dot = s.run(e, is_space);
            if s.is(dot, '.') {
                return some(T::Name, e);
            }
        }
        if p > 0 && s.s[p - 1] == '.' && is_letter(c) {
            return some(T::Name, s.run(p + 1, is_word));
        }
        if is_letter(c) {
            let e = s.run(p + 1, is_word);
            if s.is(e, '(') {
                return some(T::Name, e);
            }
        }
        if let Some(e) = s.hexadecimal(p) {
            return some(T::Hexadecimal, e);
        }
        if let Some(e) = s.float_exponent(p) {
            return some(T::Float, e);
        }
        if let Some(e) = s.float(p) {
            return some(T::Float, e);
        }
        if let Some(e) = s.integer(p) {
            return some(T::Integer, e);
        }
        if let Some(e) = s.escaped_quote(p, '\'') {
            return some(T::StringSingle, e);
        }
        // The second double-quote rule, `(""|".*?[^\\]")`, can only match where this one does
        // (both need a later `"`), so it never decides a token.
        if let Some(e) = s.escaped_quote(p, '"') {
            return some(T::StringSymbol, e);
        }
        if c == '[' && (p == 0 || !(is_word(s.s[p - 1]) || matches!(s.s[p - 1], ']' | ')'))) {
            let j = s.run(p + 1, |x| x != '[' && x != ']');
            if j > p + 1 && s.is(j, ']') {
                return some(T::Name, j + 1);
            }
        }
        if let Some(e) = s.join(p) {
            return some(T::Keyword, e);
        }
        if let Some(e) = s.word(p, "END") {
            for w in ["IF", "LOOP", "WHILE"] {
                if let Some(f) = s.spaces1(e).and_then(|i| s.word_b(i, w)) {
                    return some(T::Keyword, f);
                }
            }
            if s.boundary(e) {
                return some(T::Keyword, e);
            }
        }
        if let Some(e) = s.word(p, "IF").and_then(|e| s.spaces1(e)) {
            if let Some(f) = s.optional_not(e, |i| s.word_b(i, "EXISTS")) {
                return some(T::Keyword, f);
            }
        }
        if let Some(e) = s.two_words(p, "NOT", "NULL") {
            return some(T::Keyword, e);
        }
        if let Some(e) = s.word(p, "ASC").or_else(|| s.word(p, "DESC")) {
            let nulls = s.spaces1(e).and_then(|i| s.word(i, "NULLS")).and_then(|i| s.spaces1(i));
            if let Some(i) = nulls {
                if let Some(f) = s.word_b(i, "FIRST").or_else(|| s.word_b(i, "LAST")) {
                    return some(T::Order, f);
                }
            }
            if s.boundary(e) {
                return some(T::Order, e);
            }
        }
        if let Some(e) = s.two_words(p, "NULLS", "FIRST").or_else(|| s.two_words(p, "NULLS", "LAST")) {
            return some(T::Order, e);
        }
        if let Some(e) = s.two_words(p, "UNION", "ALL") {
            return some(T::Keyword, e);
        }
        if let Some(e) = s.word(p, "CREATE") {
            let or_replace = s
                .spaces1(e)
                .and_then(|i| s.word(i, "OR"))
                .and_then(|i| s.spaces1(i))
                .and_then(|i| s.word_b(i, "REPLACE"));
            if let Some(f) = or_replace {
                return some(T::Ddl, f);
            }
            if s.boundary(e) {
                return some(T::Ddl, e);
            }
        }
        if let Some(e) = s.two_words(p, "DOUBLE", "PRECISION") {
            return some(T::NameBuiltin, e);
        }
        for (w1, w2) in [("GROUP", "BY"), ("ORDER", "BY"), ("PRIMARY", "KEY"), ("HANDLER", "FOR")] {
            if let Some(e) = s.two_words(p, w1, w2) {
                return some(T::Keyword, e);
            }
        }
        if let Some(e) = s.word(p, "GO") {
            if s.at(e).is_some_and(is_space) {
                let f = s.run(e + 1, is_decimal);
                if f > e + 1 && s.boundary(f) {
                    return some(T::Keyword, f);
                }
            }
        }
        if let Some(e) = s.word(p, "LATERAL").and_then(|e| s.spaces1(e)) {
            if let Some(e) = s.word(e, "VIEW").and_then(|e| s.spaces1(e)) {
                for w in ["EXPLODE", "INLINE", "PARSE_URL_TUPLE", "POSEXPLODE", "STACK"] {
                    if let Some(f) = s.word_b(e, w) {
                        return some(T::Keyword, f);
                    }
                }
            }
        }
        if let Some(e) = s.word(p, "AT").or_else(|| s.word(p, "WITH'")) {
            let e = s
                .spaces1(e)
                .and_then(|i| s.word(i, "TIME"))
                .and_then(|i| s.spaces1(i))
                .and_then(|i| s.word(i, "ZONE"))
                .and_then(|i| s.spaces1(i));
            if let Some(i) = e {
                if s.is(i, '\'') {
                    let j = s.run(i + 1, |x| x != '\'');
                    if j > i + 1 && s.is(j, '\'') {
                        return some(T::TzCast, j + 1);
                    }
                }
            }
        }
        let like = |i: usize| ["LIKE", "ILIKE", "RLIKE"].iter().find_map(|w| s.word_b(i, w));
        if let Some(e) = s.optional_not(p, like) {
            return some(T::Comparison, e);
        }
        let regexp = |i: usize| {
            let e = s.word(i, "REGEXP")?;
            if let Some(f) = s.spaces1(e).and_then(|j| s.word_b(j, "BINARY")) {
                return Some(f);
            }
            s.boundary(e).then_some(e)
        };
        if let Some(e) = s.optional_not(p, regexp) {
            return some(T::Comparison, e);
        }
        if is_word(c) {
            return Some((None, s.run(p + 1, |x| is_word(x) || x == '$' || x == '#')));
        }
        if matches!(c, ';' | ':' | '(' | ')' | '[' | ']' | ',' | '.') {
            return some(T::Punctuation, p + 1);
        }
        let op = match (c, s.at(p + 1), s.at(p + 2)) {
            ('-', Some('>'), Some('>')) | ('#', Some('>'), Some('>')) => Some(p + 3),
            ('-', Some('>'), _) | ('#', Some('>'), _) | ('@', Some('>'), _) | ('<', Some('@'), _) => Some(p + 2),
            ('?', Some('|'), _) => Some(p + 2),
            ('?', _, _) | ('-', _, _) => Some(p + 1),
            ('#', Some('-'), _) => Some(p + 2),
            _ => None,
        };
        if let Some(e) = op {
            return some(T::Operator, e);
        }
        if matches!(c, '<' | '>' | '=' | '~' | '!') {
            return some(T::Comparison, s.run(p, |x| matches!(x, '<' | '>' | '=' | '~' | '!')));
        }
        if matches!(c, '+' | '/' | '@' | '#' | '%' | '^' | '&' | '|' | '-') {
            return some(T::Operator, s.run(p, |x| matches!(x, '+' | '/' | '@' | '#' | '%' | '^' | '&' | '|' | '-')));
        }
        None
    }
}

/// sqlparse's `Lexer.is_keyword`: the type of the upper-cased word in the keyword table, or
/// `Token.Name`.
fn keyword_type(value: &str) -> TType {
    let up = value.to_uppercase();
    match KEYWORDS.binary_search_by(|(k, _)| (*k).cmp(up.as_str())) {
        Ok(i) => KEYWORDS[i].1,
        Err(_) => TType::Name,
    }
}

/// `sqlparse.lexer.tokenize(text)`: the `(ttype, value)` stream of the default lexer.
pub fn tokenize(text: &str) -> Vec<(TType, String)> {
    let chars: Vec<char> = text.chars().collect();
    let scan = Scan { s: &chars };
    let mut out = Vec::new();
    let mut p = 0;
    while p < chars.len() {
        match scan.rule(p) {
            Some((tt, end)) => {
                let value: String = chars[p..end].iter().collect();
                let tt = tt.unwrap_or_else(|| keyword_type(&value));
                out.push((tt, value));
                p = end;
            }
            None => {
                out.push((TType::Error, chars[p].to_string()));
                p += 1;
            }
        }
    }
    out
}
