//! sqlglot's tokenizer (`sqlglot/tokenizer_core.py`, `TokenizerCore`), for its default and
//! SQLite dialects.
//!
//! The scan works on code points, as Python indexes a `str`, and keeps sqlglot's line and column
//! bookkeeping because it decides which token a comment is attached to (a comment on the line of
//! the previous token belongs to that token, any other to the next one), and comments are part
//! of the SQL that sqlglot generates.

use std::collections::HashMap;
use std::sync::LazyLock;

use super::tables::{self, TokenType};
use crate::pystr;

/// One token: sqlglot's `Token` (`token_type`, `text`, `line`, `col`, `start`, `end`,
/// `comments`). `start` and `end` are code-point offsets into the SQL, `end` inclusive.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    /// The token's type.
    pub token_type: TokenType,
    /// The token's text: keywords upper-cased (`GROUP BY`), strings and quoted identifiers
    /// without their delimiters and with escapes resolved.
    pub text: String,
    /// 1-based line of the token's last character.
    pub line: usize,
    /// Column of the token's last character.
    pub col: isize,
    /// Offset of the token's first character.
    pub start: usize,
    /// Offset of the token's last character.
    pub end: isize,
    /// The comments attached to the token, without their delimiters.
    pub comments: Vec<String>,
}

/// The error sqlglot raises as `TokenError` (its message is not reproduced: Unitxt's metric
/// only tells success from failure).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("sqlglot could not tokenize the SQL: {0}")]
pub struct TokenError(pub String);

/// The SQL dialects whose tokenizer is reproduced: sqlglot's default dialect (`read=""` or
/// `None`) and `sqlite`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// sqlglot's base `Dialect`: identifiers in `"`, strings in `'`, nested comments.
    Default,
    /// `sqlglot.dialects.sqlite.SQLite`: identifiers also in `` ` `` and `[...]`, hex strings
    /// (`x'..'`, `0x..`), no nested comments, `REPLACE` as a command.
    Sqlite,
}

/// A trie node of keyword texts (sqlglot's `new_trie`): children by character, and whether a
/// keyword ends here.
#[derive(Default)]
struct Trie {
    children: HashMap<char, Trie>,
    terminal: bool,
}

/// The settings `TokenizerCore` is built with, for one dialect.
struct Settings {
    single_tokens: HashMap<char, TokenType>,
    keywords: HashMap<String, TokenType>,
    quotes: HashMap<String, String>,
    format_strings: HashMap<String, (String, TokenType)>,
    identifiers: HashMap<char, char>,
    comments: HashMap<String, Option<String>>,
    commands: Vec<TokenType>,
    nested_comments: bool,
    has_hex_strings: bool,
    trie: Trie,
}

impl Settings {
    fn new(dialect: Dialect) -> Settings {
        let (kw, cmds, fmts, idents, comments) = match dialect {
            Dialect::Default => (
                tables::DEFAULT_KEYWORDS,
                tables::DEFAULT_COMMANDS,
                tables::DEFAULT_FORMAT_STRINGS,
                tables::DEFAULT_IDENTIFIERS,
                tables::DEFAULT_COMMENTS,
            ),
            Dialect::Sqlite => (
                tables::SQLITE_KEYWORDS,
                tables::SQLITE_COMMANDS,
                tables::SQLITE_FORMAT_STRINGS,
                tables::SQLITE_IDENTIFIERS,
                tables::SQLITE_COMMENTS,
            ),
        };
        let single_tokens: HashMap<char, TokenType> = tables::SINGLE_TOKENS.iter().copied().collect();
        let keywords: HashMap<String, TokenType> = kw.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        let quotes: HashMap<String, String> = [("'".to_string(), "'".to_string())].into_iter().collect();
        let format_strings: HashMap<String, (String, TokenType)> =
            fmts.iter().map(|(k, e, t)| (k.to_string(), (e.to_string(), *t))).collect();
        let comments: HashMap<String, Option<String>> = comments
            .iter()
            .map(|(k, e)| (k.to_string(), if e.is_empty() { None } else { Some(e.to_string()) }))
            .collect();
        // The trie holds the keys with a space or a single-token character in them, as
        // `Tokenizer.__init_subclass__` builds `_KEYWORD_TRIE`.
        let mut trie = Trie::default();
        let keys = keywords.keys().chain(comments.keys()).chain(quotes.keys()).chain(format_strings.keys());
        for key in keys {
            if key.contains(' ') || key.chars().any(|c| single_tokens.contains_key(&c)) {
                let mut node = &mut trie;
                for c in key.chars().map(ascii_upper) {
                    node = node.children.entry(c).or_default();
                }
                node.terminal = true;
            }
        }
        Settings {
            single_tokens,
            keywords,
            quotes,
            format_strings,
            identifiers: idents.iter().copied().collect(),
            comments,
            commands: cmds.to_vec(),
            nested_comments: dialect == Dialect::Default,
            has_hex_strings: dialect == Dialect::Sqlite,
            trie,
        }
    }
}

/// Upper-cases ASCII letters only, as the tokenizer's `_CHAR_UPPER` table does.
fn ascii_upper(c: char) -> char {
    c.to_ascii_uppercase()
}

/// Tokenizes `sql` as sqlglot's `Tokenizer(dialect).tokenize(sql)` does.
///
/// Errors: an unterminated string or quoted identifier, and an invalid hex string, as sqlglot's
/// `TokenError`.
pub fn tokenize(sql: &str, dialect: Dialect) -> Result<Vec<Token>, TokenError> {
    // Built once per process (not per thread: thread-local storage in the Python extension's
    // shared library is scarce, and these tables are read-only).
    static DEFAULT: LazyLock<Settings> = LazyLock::new(|| Settings::new(Dialect::Default));
    static SQLITE: LazyLock<Settings> = LazyLock::new(|| Settings::new(Dialect::Sqlite));
    let settings: &Settings = match dialect {
        Dialect::Default => &DEFAULT,
        Dialect::Sqlite => &SQLITE,
    };
    let mut core = Core::new(settings, sql);
    core.scan(false)?;
    Ok(core.tokens)
}

/// The scanner's state: `TokenizerCore`'s fields.
struct Core<'s> {
    s: &'s Settings,
    sql: Vec<char>,
    size: usize,
    tokens: Vec<Token>,
    start: usize,
    current: isize,
    line: usize,
    col: isize,
    comments: Vec<String>,
    ch: char,
    end: bool,
    peek: Option<char>,
    prev_token_line: isize,
}

impl<'s> Core<'s> {
    fn new(s: &'s Settings, sql: &str) -> Core<'s> {
        let sql: Vec<char> = sql.chars().collect();
        Core {
            s,
            size: sql.len(),
            sql,
            tokens: Vec::new(),
            start: 0,
            current: 0,
            line: 1,
            col: 0,
            comments: Vec::new(),
            ch: '\0',
            end: false,
            peek: None,
            prev_token_line: -1,
        }
    }

    /// `sql[i]`; past the end Python raises `IndexError`, which `tokenize` turns into a
    /// `TokenError`. (A negative index never happens: `current` is at least 1 after the first
    /// advance.)
    fn at(&self, i: isize) -> Result<char, TokenError> {
        self.sql.get(i.max(0) as usize).copied().ok_or_else(|| TokenError("string index out of range".into()))
    }

    fn text(&self, from: usize, to: isize) -> String {
        let to = (to.max(0) as usize).min(self.size);
        if from >= to {
            return String::new();
        }
        self.sql[from..to].iter().collect()
    }

    fn scan(&mut self, check_semicolon: bool) -> Result<(), TokenError> {
        while self.size > 0 && !self.end {
            let mut current = self.current as usize;
            while current < self.size && (self.sql[current] == ' ' || self.sql[current] == '\t') {
                current += 1;
            }
            let offset = if current as isize > self.current { current as isize - self.current } else { 1 };
            self.start = current;
            self.advance(offset, false)?;
            if !pystr::is_space(self.ch) {
                if self.ch.is_ascii_digit() {
                    self.scan_number()?;
                } else if let Some(&end) = self.s.identifiers.get(&self.ch) {
                    self.scan_identifier(end)?;
                } else {
                    self.scan_keywords()?;
                }
            }
            if check_semicolon && self.peek == Some(';') {
                break;
            }
        }
        if !self.comments.is_empty() {
            if let Some(last) = self.tokens.last_mut() {
                last.comments.append(&mut self.comments);
            }
        }
        Ok(())
    }

    /// `_chars(size)`: the `size` characters from the current one, or "" past the end.
    fn chars(&self, size: usize) -> String {
        if size == 1 {
            return self.ch.to_string();
        }
        let start = self.current - 1;
        let end = start + size as isize;
        if end <= self.size as isize {
            self.text(start.max(0) as usize, end)
        } else {
            String::new()
        }
    }

    fn advance(&mut self, i: isize, alnum: bool) -> Result<(), TokenError> {
        if self.ch == '\n' || self.ch == '\r' {
            if !(self.ch == '\r' && self.peek == Some('\n')) {
                self.col = i;
                self.line += 1;
            }
        } else {
            self.col += i;
        }
        self.current += i;
        self.end = self.current >= self.size as isize;
        self.ch = self.at(self.current - 1)?;
        self.peek = if self.end { None } else { Some(self.at(self.current)?) };
        if alnum && self.ch.is_alphanumeric() {
            while let Some(p) = self.peek {
                if !p.is_alphanumeric() {
                    break;
                }
                self.col += 1;
                self.current += 1;
                self.end = self.current >= self.size as isize;
                self.peek = if self.end { None } else { Some(self.at(self.current)?) };
            }
            self.ch = self.at(self.current - 1)?;
        }
        Ok(())
    }

    fn peek_str(&self) -> String {
        self.peek.map(String::from).unwrap_or_default()
    }

    fn add(&mut self, token_type: TokenType, text: Option<String>) -> Result<(), TokenError> {
        self.prev_token_line = self.line as isize;
        if !self.comments.is_empty() && token_type == TokenType::Semicolon && !self.tokens.is_empty() {
            let mut comments = std::mem::take(&mut self.comments);
            self.tokens.last_mut().expect("checked non-empty").comments.append(&mut comments);
        }
        let text = text.unwrap_or_else(|| self.text(self.start, self.current));
        self.tokens.push(Token {
            token_type,
            text,
            line: self.line,
            col: self.col,
            start: self.start,
            end: self.current - 1,
            comments: std::mem::take(&mut self.comments),
        });
        let n = self.tokens.len();
        if self.s.commands.contains(&token_type)
            && self.peek != Some(';')
            && (n == 1 || matches!(self.tokens[n - 2].token_type, TokenType::Semicolon | TokenType::Begin))
        {
            let start = self.current;
            self.scan(true)?;
            self.tokens.truncate(n);
            let text = self.text(start.max(0) as usize, self.current);
            let text = pystr::strip(&text);
            if !text.is_empty() {
                self.add(TokenType::String, Some(text.to_string()))?;
            }
        }
        Ok(())
    }

    fn scan_keywords(&mut self) -> Result<(), TokenError> {
        let mut size: isize = 0;
        let mut word: Option<String> = None;
        let mut chars = self.ch.to_string();
        let mut ch: Option<char> = Some(self.ch);
        let mut prev_space = false;
        let mut skip = false;
        let mut node = &self.s.trie;
        let mut single_token = self.s.single_tokens.contains_key(&self.ch);
        loop {
            if !skip {
                let c = ch.map(ascii_upper).unwrap_or('\0');
                match node.children.get(&c) {
                    None => break,
                    Some(sub) => node = sub,
                }
                if node.terminal {
                    word = Some(chars.clone());
                }
            }
            let end = self.current + size;
            size += 1;
            if end < self.size as isize {
                let mut c = self.at(end)?;
                single_token = single_token || self.s.single_tokens.contains_key(&c);
                let is_space = pystr::is_space(c);
                if !is_space || !prev_space {
                    if is_space {
                        c = ' ';
                    }
                    chars.push(c);
                    ch = Some(c);
                    prev_space = is_space;
                    skip = false;
                } else {
                    ch = Some(c);
                    skip = true;
                }
            } else {
                ch = None;
                break;
            }
        }
        if let Some(word) = word {
            if self.scan_string(&word)? {
                return Ok(());
            }
            if self.scan_comment(&word)? {
                return Ok(());
            }
            if prev_space || single_token || ch.is_none() {
                self.advance(size - 1, false)?;
                let upper = pystr::upper(&word);
                let Some(&tt) = self.s.keywords.get(&upper) else {
                    return Err(TokenError(format!("no keyword {upper:?}")));
                };
                return self.add(tt, Some(upper));
            }
        }
        if let Some(&tt) = self.s.single_tokens.get(&self.ch) {
            return self.add(tt, Some(self.ch.to_string()));
        }
        self.scan_var()
    }

    fn scan_comment(&mut self, comment_start: &str) -> Result<bool, TokenError> {
        let Some(comment_end) = self.s.comments.get(comment_start).cloned() else {
            return Ok(false);
        };
        let comment_start_line = self.line;
        let start_size = comment_start.chars().count();
        match comment_end {
            Some(comment_end) => {
                self.advance(start_size as isize, false)?;
                let mut count = 1;
                let end_size = comment_end.chars().count();
                while !self.end {
                    if self.chars(end_size) == comment_end {
                        count -= 1;
                        if count == 0 {
                            break;
                        }
                    }
                    self.advance(1, true)?;
                    if self.s.nested_comments && !self.end && self.chars(end_size) == comment_start {
                        self.advance(start_size as isize, false)?;
                        count += 1;
                    }
                }
                // `self._text[comment_start_size : -comment_end_size + 1]`
                let text: Vec<char> = self.text(self.start, self.current).chars().collect();
                // A negative stop counts from the end; `-1 + 1` is 0, an empty slice.
                let stop = if end_size > 1 { text.len() as isize - end_size as isize + 1 } else { 0 };
                let piece: String = if (start_size as isize) < stop {
                    text[start_size..stop.max(0) as usize].iter().collect()
                } else {
                    String::new()
                };
                self.comments.push(piece);
                self.advance(end_size as isize - 1, false)?;
            }
            None => {
                while !self.end && self.peek != Some('\n') && self.peek != Some('\r') {
                    self.advance(1, true)?;
                }
                let text: Vec<char> = self.text(self.start, self.current).chars().collect();
                self.comments.push(text.get(start_size..).map(|s| s.iter().collect()).unwrap_or_default());
            }
        }
        // The `/*+` hint keyword is absent from both dialects' comment tables here, so no HINT
        // token is ever added.
        if comment_start_line as isize == self.prev_token_line {
            let mut comments = std::mem::take(&mut self.comments);
            if let Some(last) = self.tokens.last_mut() {
                last.comments.append(&mut comments);
            }
            self.prev_token_line = self.line as isize;
        }
        Ok(true)
    }

    fn scan_number(&mut self) -> Result<(), TokenError> {
        if self.ch == '0' {
            let peek = self.peek.map(ascii_upper);
            if peek == Some('B') {
                // No bit strings in either dialect.
                return self.add(TokenType::Number, None);
            } else if peek == Some('X') {
                return if self.s.has_hex_strings { self.scan_hex() } else { self.add(TokenType::Number, None) };
            }
        }
        let mut decimal = false;
        let mut scientific = 0;
        loop {
            match self.peek {
                Some(p) if p.is_ascii_digit() => {
                    let mut end = self.current as usize + 1;
                    while end < self.size && self.sql[end].is_ascii_digit() {
                        end += 1;
                    }
                    self.advance(end as isize - self.current, false)?;
                }
                Some('.') if !decimal => {
                    if self.tokens.last().is_some_and(|t| t.token_type == TokenType::Parameter) {
                        break;
                    }
                    decimal = true;
                    self.advance(1, false)?;
                }
                Some('-' | '+') if scientific == 1 => {
                    let next = self.current as usize + 1;
                    if next < self.size && self.sql[next].is_ascii_digit() {
                        scientific += 1;
                        self.advance(1, false)?;
                    } else {
                        break;
                    }
                }
                Some(p) if ascii_upper(p) == 'E' && scientific == 0 => {
                    scientific += 1;
                    self.advance(1, false)?;
                }
                Some(p) if pystr::is_identifier_start(p) => {
                    // A literal suffix (`123L` in Hive); neither dialect has one, so the number
                    // ends before the letters.
                    let mut literal = 0isize;
                    while let Some(p) = self.peek {
                        if pystr::is_space(p) || self.s.single_tokens.contains_key(&p) {
                            break;
                        }
                        literal += 1;
                        self.advance(1, false)?;
                    }
                    self.advance(-literal, false)?;
                    break;
                }
                _ => break,
            }
        }
        self.add(TokenType::Number, None)
    }

    fn extract_value(&mut self) -> Result<String, TokenError> {
        while let Some(p) = self.peek {
            if !pystr::is_space(p) && !self.s.single_tokens.contains_key(&p) {
                self.advance(1, true)?;
            } else {
                break;
            }
        }
        Ok(self.text(self.start, self.current))
    }

    fn scan_hex(&mut self) -> Result<(), TokenError> {
        self.advance(1, false)?;
        let value = self.extract_value()?;
        if pystr::int_parses(&value, 16) {
            let digits: String = value.chars().skip(2).collect();
            self.add(TokenType::HexString, Some(digits))
        } else {
            self.add(TokenType::Identifier, None)
        }
    }

    fn scan_string(&mut self, start: &str) -> Result<bool, TokenError> {
        let (end, token_type) = if let Some(end) = self.s.quotes.get(start) {
            (end.clone(), TokenType::String)
        } else if let Some((end, tt)) = self.s.format_strings.get(start) {
            (end.clone(), *tt)
        } else {
            return Ok(false);
        };
        self.advance(start.chars().count() as isize, false)?;
        let text = self.extract_string(&end, &[])?;
        if token_type == TokenType::HexString && !text.is_empty() && !pystr::int_parses(&text, 16) {
            return Err(TokenError("numeric string contains invalid characters".into()));
        }
        self.add(token_type, Some(text))?;
        Ok(true)
    }

    fn scan_identifier(&mut self, end: char) -> Result<(), TokenError> {
        self.advance(1, false)?;
        let text = self.extract_string(&end.to_string(), &[end])?;
        self.add(TokenType::Identifier, Some(text))
    }

    fn scan_var(&mut self) -> Result<(), TokenError> {
        while let Some(p) = self.peek {
            if pystr::is_space(p) || self.s.single_tokens.contains_key(&p) {
                break;
            }
            self.advance(1, true)?;
        }
        let tt = if self.tokens.last().is_some_and(|t| t.token_type == TokenType::Parameter) {
            TokenType::Var
        } else {
            let text = pystr::upper(&self.text(self.start, self.current));
            self.s.keywords.get(&text).copied().unwrap_or(TokenType::Var)
        };
        self.add(tt, None)
    }

    /// `_extract_string(delimiter, escapes)`: the text up to the closing delimiter, with
    /// escapes resolved. `escapes` empty means the dialect's string escapes (`'`).
    fn extract_string(&mut self, delimiter: &str, escapes: &[char]) -> Result<String, TokenError> {
        let escapes: Vec<char> = if escapes.is_empty() { vec!['\''] } else { escapes.to_vec() };
        let delim: Vec<char> = delimiter.chars().collect();
        let delim_size = delim.len();
        if delim_size == 1 {
            let d = delim[0];
            let pos = (self.current - 1).max(0) as usize;
            if let Some(off) = self.sql[pos..].iter().position(|&c| c == d) {
                let end = pos + off;
                let doubled = end + 1 < self.size && self.sql[end + 1] == d && escapes.contains(&d);
                if !doubled {
                    let newlines = self.sql[pos..end].iter().filter(|&&c| c == '\n').count();
                    if newlines > 0 {
                        self.line += newlines;
                        let last_nl = pos + self.sql[pos..end].iter().rposition(|&c| c == '\n').expect("counted");
                        self.col = (end - last_nl) as isize;
                    } else {
                        self.col += (end - pos) as isize;
                    }
                    self.current = end as isize + 1;
                    self.end = self.current >= self.size as isize;
                    self.ch = self.sql[end];
                    self.peek = if self.end { None } else { Some(self.sql[self.current as usize]) };
                    return Ok(self.sql[pos..end].iter().collect());
                }
            }
        }
        let mut text = String::new();
        loop {
            let peek_is = |c: Option<char>| c.is_some_and(|p| p.to_string() == delimiter || escapes.contains(&p));
            if escapes.contains(&self.ch) && peek_is(self.peek) && (!self.s.quotes.contains_key(&self.ch.to_string()) || Some(self.ch) == self.peek) {
                if self.peek_str() == delimiter {
                    text.push_str(&self.peek_str());
                } else {
                    text.push(self.ch);
                    text.push_str(&self.peek_str());
                }
                if (self.current + 1) < self.size as isize {
                    self.advance(2, false)?;
                } else {
                    return Err(TokenError(format!("missing {delimiter}")));
                }
            } else {
                if self.chars(delim_size) == delimiter {
                    if delim_size > 1 {
                        self.advance(delim_size as isize - 1, false)?;
                    }
                    break;
                }
                if self.end {
                    return Err(TokenError(format!("missing {delimiter}")));
                }
                let current = (self.current - 1) as usize;
                self.advance(1, true)?;
                text.push_str(&self.text(current, self.current - 1));
            }
        }
        Ok(text)
    }
}
