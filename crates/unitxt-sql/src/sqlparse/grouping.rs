//! sqlparse's token tree (`sqlparse.sql`), statement splitting
//! (`engine.statement_splitter.StatementSplitter`) and grouping engine (`engine.grouping.group`).
//!
//! Tokens live in an arena ([`Tree`]); a group holds the ids of its children. The grouping
//! passes run in sqlparse's order with its index bookkeeping (including how `_group` keeps
//! walking a snapshot of the token list after a group has swallowed tokens), its limits
//! (nesting depth 100 and 10,000 tokens per list, both of which make `sqlparse.parse` raise)
//! and its exact type tests: a tuple of token types is an exact membership test in sqlparse,
//! a single type also accepts its sub-types.

use super::lexer::{is_space, TType};

/// Index of a token in a [`Tree`].
pub type Id = usize;

/// sqlparse's `MAX_GROUPING_DEPTH`.
const MAX_GROUPING_DEPTH: usize = 100;
/// sqlparse's `MAX_GROUPING_TOKENS`.
const MAX_GROUPING_TOKENS: usize = 10_000;
/// Depth past which the undecorated recursive passes stop. Python's interpreter recursion limit
/// (1,000 frames) stops sqlparse there too, and any tree this deep has a group deeper than
/// `MAX_GROUPING_DEPTH` that the last grouping pass rejects anyway, so either way parsing fails.
const MAX_WALK_DEPTH: usize = 400;

/// The class of a token (`sqlparse.sql`): a plain `Token`, or one of the `TokenList` groups.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Class {
    /// `sql.Token`, a leaf with a token type.
    Token,
    /// `sql.Statement`
    Statement,
    /// `sql.Identifier`
    Identifier,
    /// `sql.IdentifierList`
    IdentifierList,
    /// `sql.TypedLiteral`
    TypedLiteral,
    /// `sql.Parenthesis`
    Parenthesis,
    /// `sql.SquareBrackets`
    SquareBrackets,
    /// `sql.Assignment`
    Assignment,
    /// `sql.If`
    If,
    /// `sql.For`
    For,
    /// `sql.Comparison`
    Comparison,
    /// `sql.Comment`
    Comment,
    /// `sql.Where`
    Where,
    /// `sql.Over`
    Over,
    /// `sql.Case`
    Case,
    /// `sql.Function`
    Function,
    /// `sql.Begin`
    Begin,
    /// `sql.Operation`
    Operation,
    /// `sql.Values`
    Values,
    /// `sql.TokenList` itself; only used as "any group" when extending a group.
    TokenList,
}

/// One token: a leaf (`class == Class::Token`, with a type and a value) or a group.
#[derive(Clone, Debug)]
pub struct Node {
    /// Leaf or group class.
    pub class: Class,
    /// The token type; `None` for groups.
    pub ttype: Option<TType>,
    /// The text of a leaf (empty for groups; see [`Tree::value`]).
    pub text: String,
    /// Child ids of a group.
    pub children: Vec<Id>,
    /// sqlparse's `is_keyword`, fixed when the leaf is made.
    pub is_keyword: bool,
    /// sqlparse's `is_whitespace` (spaces and newlines).
    pub is_whitespace: bool,
    /// sqlparse's `is_newline`.
    pub is_newline: bool,
}

/// sqlparse raised (`SQLParseError` for the grouping limits, or an internal error).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseFailure;

type Res<T = ()> = Result<T, ParseFailure>;

/// An arena of tokens; statements are groups in it.
#[derive(Default, Debug)]
pub struct Tree {
    /// All tokens ever made.
    pub nodes: Vec<Node>,
}

/// The `t=` argument of sqlparse's `imt`: a single type (sub-types match) or a tuple of types
/// (exact membership).
#[derive(Clone, Copy)]
enum Types<'a> {
    Under(TType),
    Exactly(&'a [TType]),
}

const T_NUMERICAL: [TType; 3] = [TType::Number, TType::Integer, TType::Float];
const T_STRING: [TType; 3] = [TType::String, TType::StringSingle, TType::StringSymbol];
const T_NAME: [TType; 2] = [TType::Name, TType::Placeholder];

impl Tree {
    fn leaf(&mut self, ttype: TType, text: String) -> Id {
        self.nodes.push(Node {
            class: Class::Token,
            ttype: Some(ttype),
            text,
            children: Vec::new(),
            is_keyword: ttype.is_a(TType::Keyword),
            is_whitespace: ttype.is_a(TType::Whitespace),
            is_newline: ttype.is_a(TType::Newline),
        });
        self.nodes.len() - 1
    }

    fn group(&mut self, class: Class, children: Vec<Id>) -> Id {
        self.nodes.push(Node {
            class,
            ttype: None,
            text: String::new(),
            children,
            is_keyword: false,
            is_whitespace: false,
            is_newline: false,
        });
        self.nodes.len() - 1
    }

    /// The token's class.
    pub fn class(&self, id: Id) -> Class {
        self.nodes[id].class
    }

    /// The token's type (`None` for a group).
    pub fn ttype(&self, id: Id) -> Option<TType> {
        self.nodes[id].ttype
    }

    /// The children of a group.
    pub fn children(&self, id: Id) -> &[Id] {
        &self.nodes[id].children
    }

    fn is_group(&self, id: Id) -> bool {
        self.nodes[id].class != Class::Token
    }

    fn is_ws(&self, id: Id) -> bool {
        self.nodes[id].is_whitespace
    }

    /// sqlparse's `isinstance(token, cls)` for a group class (`TokenList`: any group).
    fn is_instance(&self, id: Id, cls: Class) -> bool {
        let c = self.nodes[id].class;
        if cls == Class::TokenList {
            c != Class::Token
        } else {
            c == cls
        }
    }

    /// The token's `value`: the text of its leaves, in order.
    pub fn value(&self, id: Id) -> String {
        let mut out = String::new();
        let mut stack = vec![id];
        while let Some(t) = stack.pop() {
            let n = &self.nodes[t];
            if n.class == Class::Token {
                out.push_str(&n.text);
            } else {
                stack.extend(n.children.iter().rev());
            }
        }
        out
    }

    /// The value if it has at most `max` characters (callers compare it with short words;
    /// Python's `upper()` never shortens a string, so longer values cannot be equal).
    fn short_value(&self, id: Id, max: usize) -> Option<String> {
        let mut out = String::new();
        let mut count = 0;
        let mut stack = vec![id];
        while let Some(t) = stack.pop() {
            let n = &self.nodes[t];
            if n.class == Class::Token {
                count += n.text.chars().count();
                if count > max {
                    return None;
                }
                out.push_str(&n.text);
            } else {
                stack.extend(n.children.iter().rev());
            }
        }
        Some(out)
    }

    /// sqlparse's `normalized` compared with `word`: upper-cased for keywords, else the value.
    fn normalized_is(&self, id: Id, word: &str) -> bool {
        let n = &self.nodes[id];
        if n.class == Class::Token {
            if n.is_keyword {
                n.text.to_uppercase() == word
            } else {
                n.text == word
            }
        } else {
            self.short_value(id, word.chars().count()).is_some_and(|v| v == word)
        }
    }

    /// sqlparse's `token.match(ttype, values)` (non-regex): exact type, and for keywords the
    /// upper-cased value among the upper-cased `values`.
    fn match_values(&self, id: Id, ttype: TType, values: &[&str]) -> bool {
        let n = &self.nodes[id];
        if n.ttype != Some(ttype) {
            return false;
        }
        if n.is_keyword {
            let up = n.text.to_uppercase();
            values.iter().any(|v| v.to_uppercase() == up)
        } else {
            values.iter().any(|v| *v == n.text)
        }
    }

    fn match_one(&self, id: Id, ttype: TType, value: &str) -> bool {
        self.match_values(id, ttype, &[value])
    }

    fn ttype_in(&self, id: Id, types: Types) -> bool {
        match (self.nodes[id].ttype, types) {
            (Some(t), Types::Under(a)) => t.is_a(a),
            (Some(t), Types::Exactly(list)) => list.contains(&t),
            (None, _) => false,
        }
    }

    fn class_in(&self, id: Id, classes: &[Class]) -> bool {
        classes.iter().any(|&c| self.is_instance(id, c))
    }

    /// `token_next(idx)`: the next non-whitespace token after `idx`.
    fn token_next(&self, tlist: Id, idx: Option<usize>) -> Option<usize> {
        let idx = idx?;
        let toks = &self.nodes[tlist].children;
        (idx + 1..toks.len()).find(|&i| !self.is_ws(toks[i]))
    }

    /// `token_prev(idx, skip_ws)`: the previous (non-whitespace) token before `idx`.
    fn token_prev(&self, tlist: Id, idx: Option<usize>, skip_ws: bool) -> Option<usize> {
        let idx = idx?;
        let toks = &self.nodes[tlist].children;
        (0..idx.min(toks.len())).rev().find(|&i| !(skip_ws && self.is_ws(toks[i])))
    }

    /// `token_next_by(...)` with a predicate: the first matching token after `idx`
    /// (`None` searches from the start).
    fn token_next_by(&self, tlist: Id, idx: Option<usize>, pred: impl Fn(&Tree, Id) -> bool) -> Option<usize> {
        let start = idx.map_or(0, |i| i + 1);
        let toks = &self.nodes[tlist].children;
        (start..toks.len()).find(|&i| pred(self, toks[i]))
    }

    fn tok(&self, tlist: Id, idx: usize) -> Id {
        self.nodes[tlist].children[idx]
    }

    /// sqlparse's `TokenList.group_tokens`: replaces tokens `start..=end` of `tlist` by a group
    /// of class `cls`, or, with `extend` and a `cls` group at `start`, moves them into it.
    /// Index handling follows Python's slices (an out-of-range start raises).
    fn group_tokens(&mut self, tlist: Id, cls: Class, start: usize, end: usize, extend: bool) -> Res<Id> {
        let len = self.nodes[tlist].children.len();
        if start >= len {
            return Err(ParseFailure);
        }
        let end_idx = (end + 1).min(len);
        let first = self.tok(tlist, start);
        if extend && self.is_instance(first, cls) {
            let lo = start + 1;
            if lo < end_idx {
                let moved: Vec<Id> = self.nodes[tlist].children.drain(lo..end_idx).collect();
                self.nodes[first].children.extend(moved);
            }
            Ok(first)
        } else {
            let hi = end_idx.max(start);
            let moved: Vec<Id> = self.nodes[tlist].children[start..hi].to_vec();
            let grp = self.group(cls, moved);
            self.nodes[tlist].children.splice(start..hi, [grp]);
            Ok(grp)
        }
    }

    /// sqlparse's `imt` with `i=` classes and `t=` types.
    fn imt(&self, id: Option<Id>, classes: &[Class], types: Option<Types>) -> bool {
        let Some(id) = id else { return false };
        self.class_in(id, classes) || types.is_some_and(|t| self.ttype_in(id, t))
    }
}

/// `StatementSplitter`: splits the token stream into statements (lists of leaf ids).
struct Splitter {
    in_declare: bool,
    in_case: bool,
    is_create: bool,
    begin_depth: i64,
    seen_begin: bool,
    consume_ws: bool,
    tokens: Vec<Id>,
    level: i64,
}

impl Splitter {
    fn new() -> Self {
        Splitter {
            in_declare: false,
            in_case: false,
            is_create: false,
            begin_depth: 0,
            seen_begin: false,
            consume_ws: false,
            tokens: Vec::new(),
            level: 0,
        }
    }

    fn change_level(&mut self, ttype: TType, value: &str) -> i64 {
        if ttype == TType::Punctuation && value == "(" {
            return 1;
        }
        if ttype == TType::Punctuation && value == ")" {
            return -1;
        }
        if !ttype.is_a(TType::Keyword) {
            return 0;
        }
        let unified = value.to_uppercase();
        if ttype == TType::Ddl && unified.starts_with("CREATE") {
            self.is_create = true;
            return 0;
        }
        if unified == "DECLARE" && self.is_create && self.begin_depth == 0 {
            self.in_declare = true;
            return 1;
        }
        if unified == "BEGIN" {
            self.begin_depth += 1;
            self.seen_begin = true;
            return if self.is_create { 1 } else { 0 };
        }
        if self.seen_begin
            && ttype == TType::Keyword
            && matches!(
                unified.as_str(),
                "TRANSACTION" | "WORK" | "TRAN" | "DISTRIBUTED" | "DEFERRED" | "IMMEDIATE" | "EXCLUSIVE"
            )
        {
            self.begin_depth = (self.begin_depth - 1).max(0);
            self.seen_begin = false;
            return 0;
        }
        if unified == "END" {
            if !self.in_case {
                self.begin_depth = (self.begin_depth - 1).max(0);
            } else {
                self.in_case = false;
            }
            return -1;
        }
        if matches!(unified.as_str(), "IF" | "FOR" | "WHILE" | "CASE") && self.is_create && self.begin_depth > 0 {
            if unified == "CASE" {
                self.in_case = true;
            }
            return 1;
        }
        if matches!(unified.as_str(), "END IF" | "END FOR" | "END WHILE") {
            return -1;
        }
        0
    }
}

/// Python's `str.split()[0]` of a keyword value equals `"GO"`.
fn first_word_is_go(value: &str) -> bool {
    value.split(is_space).find(|w| !w.is_empty()) == Some("GO")
}

/// Splits a token stream into statements, each a `Statement` group in `tree`.
fn split_statements(tree: &mut Tree, stream: Vec<(TType, String)>) -> Vec<Id> {
    let mut out = Vec::new();
    let mut sp = Splitter::new();
    for (ttype, value) in stream {
        if sp.consume_ws && !matches!(ttype, TType::Whitespace | TType::CommentSingle) {
            let toks = std::mem::take(&mut sp.tokens);
            out.push(tree.group(Class::Statement, toks));
            sp = Splitter::new();
        }
        sp.level += sp.change_level(ttype, &value);
        let is_semicolon = ttype == TType::Punctuation && value == ";";
        let is_go = ttype == TType::Keyword && first_word_is_go(&value);
        let resets_begin =
            !(matches!(ttype, TType::Whitespace | TType::Newline | TType::CommentSingle | TType::CommentMultiline)
                || (ttype == TType::Keyword && value.to_uppercase() == "BEGIN"));
        let id = tree.leaf(ttype, value);
        sp.tokens.push(id);
        if is_semicolon {
            if sp.seen_begin {
                sp.begin_depth = (sp.begin_depth - 1).max(0);
            }
            sp.seen_begin = false;
            if sp.level <= 0 && sp.begin_depth == 0 {
                sp.consume_ws = true;
            }
        } else if is_go {
            sp.consume_ws = true;
        } else if resets_begin {
            sp.seen_begin = false;
        }
    }
    if !sp.tokens.is_empty() && !sp.tokens.iter().all(|&t| tree.is_ws(t)) {
        out.push(tree.group(Class::Statement, sp.tokens));
    }
    out
}

/// `sqlparse.parse(sql)`: lexes, splits and groups. The tree and the statement ids, or
/// [`ParseFailure`] where sqlparse raises.
pub fn parse(sql: &str) -> Result<(Tree, Vec<Id>), ParseFailure> {
    let mut tree = Tree::default();
    let stream = super::lexer::tokenize(sql);
    let stmts = split_statements(&mut tree, stream);
    for &s in &stmts {
        group(&mut tree, s)?;
    }
    Ok((tree, stmts))
}

fn limits(tree: &Tree, tlist: Id, depth: usize) -> Res {
    if depth > MAX_GROUPING_DEPTH || tree.children(tlist).len() > MAX_GROUPING_TOKENS {
        return Err(ParseFailure);
    }
    Ok(())
}

/// The open and close markers of the bracket-like groups (`M_OPEN`, `M_CLOSE`).
fn markers(cls: Class) -> (TType, &'static [&'static str], &'static [&'static str]) {
    match cls {
        Class::SquareBrackets => (TType::Punctuation, &["["], &["]"]),
        Class::Parenthesis => (TType::Punctuation, &["("], &[")"]),
        Class::Case => (TType::Keyword, &["CASE"], &["END"]),
        Class::If => (TType::Keyword, &["IF"], &["END IF"]),
        Class::For => (TType::Keyword, &["FOR", "FOREACH"], &["END LOOP"]),
        _ => (TType::Keyword, &["BEGIN"], &["END"]),
    }
}

/// `_group_matching`: pairs open and close markers into `cls` groups, descending into other
/// groups.
fn group_matching(tree: &mut Tree, tlist: Id, cls: Class, depth: usize) -> Res {
    limits(tree, tlist, depth)?;
    let (tt, open, close) = markers(cls);
    let mut opens: Vec<usize> = Vec::new();
    let mut offset = 0usize;
    let snapshot = tree.children(tlist).to_vec();
    for (idx, &token) in snapshot.iter().enumerate() {
        let tidx = idx - offset;
        if tree.is_ws(token) {
            continue;
        }
        if tree.is_group(token) && !tree.is_instance(token, cls) {
            group_matching(tree, token, cls, depth + 1)?;
            continue;
        }
        if tree.match_values(token, tt, open) {
            opens.push(tidx);
        } else if tree.match_values(token, tt, close) {
            let Some(open_idx) = opens.pop() else { continue };
            tree.group_tokens(tlist, cls, open_idx, tidx, false)?;
            offset += tidx - open_idx;
        }
    }
    Ok(())
}

/// A `post` callback of `_group`: `(tree, tlist, pidx, tidx, nidx) -> (from, to)`.
type PostFn = fn(&mut Tree, Id, usize, usize, Option<usize>) -> (usize, usize);

/// The callbacks of one `_group` pass.
struct Spec {
    cls: Class,
    matches: fn(&Tree, Id) -> bool,
    valid_prev: fn(&Tree, Option<Id>) -> bool,
    valid_next: fn(&Tree, Option<Id>) -> bool,
    /// `(tree, tlist, pidx, tidx, nidx) -> (from, to)`.
    post: PostFn,
    extend: bool,
    recurse: bool,
}

/// `_group`: groups tokens joined by a middle token (`x < y`, `a.b`, `a, b`, ...).
fn group_generic(tree: &mut Tree, tlist: Id, spec: &Spec, depth: usize) -> Res {
    limits(tree, tlist, depth)?;
    let mut offset: isize = 0;
    let mut prev: Option<(usize, Id)> = None;
    let snapshot = tree.children(tlist).to_vec();
    for (idx, &token) in snapshot.iter().enumerate() {
        let tidx = idx as isize - offset;
        if tidx < 0 {
            continue;
        }
        let tidx = tidx as usize;
        if tree.is_ws(token) {
            continue;
        }
        if spec.recurse && tree.is_group(token) && !tree.is_instance(token, spec.cls) {
            group_generic(tree, token, spec, depth + 1)?;
        }
        if (spec.matches)(tree, token) {
            let nidx = tree.token_next(tlist, Some(tidx));
            let next = nidx.map(|i| tree.tok(tlist, i));
            if let Some((pidx, p)) = prev {
                if (spec.valid_prev)(tree, Some(p)) && (spec.valid_next)(tree, next) {
                    let (from, to) = (spec.post)(tree, tlist, pidx, tidx, nidx);
                    let grp = tree.group_tokens(tlist, spec.cls, from, to, spec.extend)?;
                    offset += to as isize - from as isize;
                    prev = Some((from, grp));
                    continue;
                }
            }
        }
        prev = Some((tidx, token));
    }
    Ok(())
}

/// sqlparse's `@recurse(*exclude)` decorator: runs `f` on every sub-group not of an excluded
/// class (depth first), then on `tlist`.
fn recurse(tree: &mut Tree, tlist: Id, exclude: &[Class], f: fn(&mut Tree, Id) -> Res, depth: usize) -> Res {
    if depth > MAX_WALK_DEPTH {
        return Err(ParseFailure);
    }
    let subs: Vec<Id> = tree.children(tlist).iter().copied().filter(|&t| tree.is_group(t)).collect();
    for sg in subs {
        if !exclude.contains(&tree.class(sg)) {
            recurse(tree, sg, exclude, f, depth + 1)?;
        }
    }
    f(tree, tlist)
}

fn post_prev_next(_: &mut Tree, _: Id, pidx: usize, tidx: usize, nidx: Option<usize>) -> (usize, usize) {
    (pidx, nidx.unwrap_or(tidx))
}

fn not_none(_: &Tree, t: Option<Id>) -> bool {
    t.is_some()
}

fn group_comments(tree: &mut Tree, tlist: Id) -> Res {
    let is_comment = |tr: &Tree, t: Id| tr.ttype_in(t, Types::Under(TType::Comment));
    let mut tidx = tree.token_next_by(tlist, None, is_comment);
    while let Some(ti) = tidx {
        let toks = tree.children(tlist);
        let end = (ti..toks.len()).find(|&i| !(is_comment(tree, toks[i]) || tree.nodes[toks[i]].is_newline));
        if let Some(eidx) = end {
            let eidx = tree.token_prev(tlist, Some(eidx), false).unwrap_or(ti);
            tree.group_tokens(tlist, Class::Comment, ti, eidx, false)?;
        }
        tidx = tree.token_next_by(tlist, Some(ti), is_comment);
    }
    Ok(())
}

fn group_over(tree: &mut Tree, tlist: Id) -> Res {
    let is_over = |tr: &Tree, t: Id| tr.match_one(t, TType::Keyword, "OVER");
    let mut tidx = tree.token_next_by(tlist, None, is_over);
    while let Some(ti) = tidx {
        let nidx = tree.token_next(tlist, Some(ti));
        let next = nidx.map(|i| tree.tok(tlist, i));
        if tree.imt(next, &[Class::Parenthesis], Some(Types::Under(TType::Name))) {
            tree.group_tokens(tlist, Class::Over, ti, nidx.unwrap_or(ti), false)?;
        }
        tidx = tree.token_next_by(tlist, Some(ti), is_over);
    }
    Ok(())
}

fn group_functions(tree: &mut Tree, tlist: Id) -> Res {
    let (mut has_create, mut has_table, mut has_as) = (false, false, false);
    for &t in tree.children(tlist) {
        if let Some(v) = tree.short_value(t, 6) {
            let up = v.to_uppercase();
            has_create |= up == "CREATE";
            has_table |= up == "TABLE";
            has_as |= v == "AS";
        }
    }
    if has_create && has_table && !has_as {
        return Ok(());
    }
    let is_name = |tr: &Tree, t: Id| tr.ttype_in(t, Types::Under(TType::Name));
    let mut tidx = tree.token_next_by(tlist, None, is_name);
    while let Some(ti) = tidx {
        let nidx = tree.token_next(tlist, Some(ti));
        if let Some(ni) = nidx {
            if tree.is_instance(tree.tok(tlist, ni), Class::Parenthesis) {
                let over_idx = tree.token_next(tlist, Some(ni));
                let eidx = match over_idx {
                    Some(oi) if tree.is_instance(tree.tok(tlist, oi), Class::Over) => oi,
                    _ => ni,
                };
                tree.group_tokens(tlist, Class::Function, ti, eidx, false)?;
            }
        }
        tidx = tree.token_next_by(tlist, Some(ti), is_name);
    }
    Ok(())
}

const WHERE_CLOSE: [&str; 10] =
    ["ORDER BY", "GROUP BY", "LIMIT", "UNION", "UNION ALL", "EXCEPT", "INTERSECT", "HAVING", "RETURNING", "INTO"];

fn group_where(tree: &mut Tree, tlist: Id) -> Res {
    let is_where = |tr: &Tree, t: Id| tr.match_one(t, TType::Keyword, "WHERE");
    let mut tidx = tree.token_next_by(tlist, None, is_where);
    while let Some(ti) = tidx {
        let close = tree.token_next_by(tlist, Some(ti), |tr, t| tr.match_values(t, TType::Keyword, &WHERE_CLOSE));
        let len = tree.children(tlist).len();
        let eidx = match close {
            Some(ci) => ci - 1,
            None => {
                // `_groupable_tokens[-1]`: brackets leave out their closing token.
                let bracketed = matches!(tree.class(tlist), Class::Parenthesis | Class::SquareBrackets);
                let groupable = if bracketed { len.saturating_sub(2) } else { len };
                if groupable == 0 {
                    return Err(ParseFailure);
                }
                if bracketed {
                    groupable
                } else {
                    len - 1
                }
            }
        };
        tree.group_tokens(tlist, Class::Where, ti, eidx, false)?;
        tidx = tree.token_next_by(tlist, Some(ti), is_where);
    }
    Ok(())
}

fn period_matches(tree: &Tree, t: Id) -> bool {
    tree.match_one(t, TType::Punctuation, ".")
        || tree.match_one(t, TType::Operator, "->")
        || tree.match_one(t, TType::Operator, "->>")
}

fn period_valid_prev(tree: &Tree, t: Option<Id>) -> bool {
    tree.imt(t, &[Class::SquareBrackets, Class::Identifier], Some(Types::Exactly(&[TType::Name, TType::StringSymbol])))
}

fn period_post(tree: &mut Tree, tlist: Id, pidx: usize, tidx: usize, nidx: Option<usize>) -> (usize, usize) {
    let next = nidx.map(|i| tree.tok(tlist, i));
    let ok = tree.imt(
        next,
        &[Class::SquareBrackets, Class::Function],
        Some(Types::Exactly(&[TType::Name, TType::StringSymbol, TType::Wildcard, TType::StringSingle])),
    );
    match (ok, nidx) {
        (true, Some(n)) => (pidx, n),
        _ => (pidx, tidx),
    }
}

fn arrays_valid_prev(tree: &Tree, t: Option<Id>) -> bool {
    tree.imt(
        t,
        &[Class::SquareBrackets, Class::Identifier, Class::Function],
        Some(Types::Exactly(&[TType::Name, TType::StringSymbol])),
    )
}

fn group_identifier(tree: &mut Tree, tlist: Id) -> Res {
    let pred = |tr: &Tree, t: Id| tr.ttype_in(t, Types::Exactly(&[TType::StringSymbol, TType::Name]));
    let mut tidx = tree.token_next_by(tlist, None, pred);
    while let Some(ti) = tidx {
        tree.group_tokens(tlist, Class::Identifier, ti, ti, false)?;
        tidx = tree.token_next_by(tlist, Some(ti), pred);
    }
    Ok(())
}

fn group_order(tree: &mut Tree, tlist: Id) -> Res {
    let pred = |tr: &Tree, t: Id| tr.ttype_in(t, Types::Under(TType::Order));
    let mut tidx = tree.token_next_by(tlist, None, pred);
    while let Some(mut ti) = tidx {
        let pidx = tree.token_prev(tlist, Some(ti), true);
        let prev = pidx.map(|i| tree.tok(tlist, i));
        if tree.imt(prev, &[Class::Identifier], Some(Types::Under(TType::Number))) {
            let p = pidx.unwrap_or(ti);
            tree.group_tokens(tlist, Class::Identifier, p, ti, false)?;
            ti = p;
        }
        tidx = tree.token_next_by(tlist, Some(ti), pred);
    }
    Ok(())
}

fn typecast_matches(tree: &Tree, t: Id) -> bool {
    tree.match_one(t, TType::Punctuation, "::")
}

fn tzcast_matches(tree: &Tree, t: Id) -> bool {
    tree.ttype(t) == Some(TType::TzCast)
}

fn tzcast_valid_next(tree: &Tree, t: Option<Id>) -> bool {
    t.is_some_and(|t| {
        tree.is_ws(t) || tree.match_one(t, TType::Keyword, "AS") || tree.ttype(t) == Some(TType::StringSingle)
    })
}

fn typed_literal_matches(tree: &Tree, t: Id) -> bool {
    tree.ttype(t) == Some(TType::NameBuiltin) || tree.match_one(t, TType::Keyword, "TIMESTAMP")
}

fn typed_literal_extends(tree: &Tree, t: Id) -> bool {
    tree.is_instance(t, Class::TypedLiteral)
}

fn typed_literal_valid_next(tree: &Tree, t: Option<Id>) -> bool {
    t.is_some_and(|t| tree.ttype(t) == Some(TType::StringSingle))
}

fn typed_literal_valid_final(tree: &Tree, t: Option<Id>) -> bool {
    t.is_some_and(|t| tree.match_values(t, TType::Keyword, &["DAY", "HOUR", "MINUTE", "MONTH", "SECOND", "YEAR"]))
}

fn post_this_next(_: &mut Tree, _: Id, _: usize, tidx: usize, nidx: Option<usize>) -> (usize, usize) {
    (tidx, nidx.unwrap_or(tidx))
}

fn post_prev_this(_: &mut Tree, _: Id, pidx: usize, tidx: usize, _: Option<usize>) -> (usize, usize) {
    (pidx, tidx)
}

const OPERAND_TYPES: [TType; 8] =
    [T_NUMERICAL[0], T_NUMERICAL[1], T_NUMERICAL[2], T_STRING[0], T_STRING[1], T_STRING[2], T_NAME[0], T_NAME[1]];

fn operator_matches(tree: &Tree, t: Id) -> bool {
    tree.ttype_in(t, Types::Exactly(&[TType::Operator, TType::Wildcard]))
}

fn operator_valid(tree: &Tree, t: Option<Id>) -> bool {
    let classes = [
        Class::SquareBrackets,
        Class::Parenthesis,
        Class::Function,
        Class::Identifier,
        Class::Operation,
        Class::TypedLiteral,
    ];
    tree.imt(t, &classes, Some(Types::Exactly(&OPERAND_TYPES)))
        || t.is_some_and(|t| {
            tree.match_values(t, TType::Keyword, &["CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP"])
        })
}

fn operator_post(tree: &mut Tree, tlist: Id, pidx: usize, tidx: usize, nidx: Option<usize>) -> (usize, usize) {
    // sqlparse sets `tlist[tidx].ttype = T.Operator`.
    if let Some(&t) = tree.children(tlist).get(tidx) {
        tree.nodes[t].ttype = Some(TType::Operator);
    }
    (pidx, nidx.unwrap_or(tidx))
}

fn comparison_matches(tree: &Tree, t: Id) -> bool {
    tree.ttype(t) == Some(TType::Comparison)
}

fn comparison_valid(tree: &Tree, t: Option<Id>) -> bool {
    let classes = [Class::Parenthesis, Class::Function, Class::Identifier, Class::Operation, Class::TypedLiteral];
    tree.imt(t, &classes, Some(Types::Exactly(&OPERAND_TYPES)))
        || t.is_some_and(|t| tree.nodes[t].is_keyword && tree.normalized_is(t, "NULL"))
}

fn as_matches(tree: &Tree, t: Id) -> bool {
    tree.nodes[t].is_keyword && tree.normalized_is(t, "AS")
}

fn as_valid_prev(tree: &Tree, t: Option<Id>) -> bool {
    t.is_some_and(|t| tree.normalized_is(t, "NULL") || !tree.nodes[t].is_keyword)
}

fn as_valid_next(tree: &Tree, t: Option<Id>) -> bool {
    !tree.imt(t, &[], Some(Types::Exactly(&[TType::Dml, TType::Ddl, TType::Cte]))) && t.is_some()
}

fn group_aliased(tree: &mut Tree, tlist: Id) -> Res {
    let pred = |tr: &Tree, t: Id| {
        tr.imt(
            Some(t),
            &[Class::Parenthesis, Class::Function, Class::Case, Class::Identifier, Class::Operation, Class::Comparison],
            Some(Types::Under(TType::Number)),
        )
    };
    let mut tidx = tree.token_next_by(tlist, None, pred);
    while let Some(ti) = tidx {
        if let Some(ni) = tree.token_next(tlist, Some(ti)) {
            if tree.is_instance(tree.tok(tlist, ni), Class::Identifier) {
                tree.group_tokens(tlist, Class::Identifier, ti, ni, true)?;
            }
        }
        tidx = tree.token_next_by(tlist, Some(ti), pred);
    }
    Ok(())
}

fn assignment_matches(tree: &Tree, t: Id) -> bool {
    tree.match_one(t, TType::Assignment, ":=")
}

fn assignment_valid(tree: &Tree, t: Option<Id>) -> bool {
    t.is_some_and(|t| tree.ttype(t) != Some(TType::Keyword))
}

fn assignment_post(tree: &mut Tree, tlist: Id, pidx: usize, tidx: usize, nidx: Option<usize>) -> (usize, usize) {
    let semicolon = tree.token_next_by(tlist, nidx, |tr, t| tr.match_one(t, TType::Punctuation, ";"));
    // Python's `snidx or nidx`: a semicolon at index 0 counts as missing.
    let n = match semicolon {
        Some(s) if s != 0 => Some(s),
        _ => nidx,
    };
    (pidx, n.unwrap_or(tidx))
}

fn align_comments(tree: &mut Tree, tlist: Id) -> Res {
    let pred = |tr: &Tree, t: Id| tr.is_instance(t, Class::Comment);
    let mut tidx = tree.token_next_by(tlist, None, pred);
    while let Some(mut ti) = tidx {
        let pidx = tree.token_prev(tlist, Some(ti), true);
        if let Some(p) = pidx {
            if tree.is_group(tree.tok(tlist, p)) {
                tree.group_tokens(tlist, Class::TokenList, p, ti, true)?;
                ti = p;
            }
        }
        tidx = tree.token_next_by(tlist, Some(ti), pred);
    }
    Ok(())
}

fn comma_matches(tree: &Tree, t: Id) -> bool {
    tree.match_one(t, TType::Punctuation, ",")
}

fn list_item_valid(tree: &Tree, t: Option<Id>) -> bool {
    const TYPES: [TType; 11] = [
        TType::Number,
        TType::Integer,
        TType::Float,
        TType::String,
        TType::StringSingle,
        TType::StringSymbol,
        TType::Name,
        TType::Placeholder,
        TType::Keyword,
        TType::Comment,
        TType::Wildcard,
    ];
    let classes =
        [Class::Function, Class::Case, Class::Identifier, Class::Comparison, Class::IdentifierList, Class::Operation];
    tree.imt(t, &classes, Some(Types::Exactly(&TYPES)))
        || t.is_some_and(|t| tree.match_values(t, TType::Keyword, &["null", "role"]))
}

fn group_values(tree: &mut Tree, tlist: Id) -> Res {
    let mut tidx = tree.token_next_by(tlist, None, |tr, t| tr.match_one(t, TType::Keyword, "VALUES"));
    let start = tidx;
    let mut end: Option<usize> = None;
    while let Some(ti) = tidx {
        if tree.is_instance(tree.tok(tlist, ti), Class::Parenthesis) {
            end = Some(ti);
        }
        tidx = tree.token_next(tlist, Some(ti));
    }
    if let (Some(s), Some(e)) = (start, end) {
        tree.group_tokens(tlist, Class::Values, s, e, true)?;
    }
    Ok(())
}

fn run_spec(tree: &mut Tree, stmt: Id, spec: Spec) -> Res {
    group_generic(tree, stmt, &spec, 0)
}

/// `sqlparse.engine.grouping.group(stmt)`: all grouping passes, in sqlparse's order.
fn group(tree: &mut Tree, stmt: Id) -> Res {
    recurse(tree, stmt, &[Class::Comment], group_comments, 0)?;
    for cls in [Class::SquareBrackets, Class::Parenthesis, Class::Case, Class::If, Class::For, Class::Begin] {
        group_matching(tree, stmt, cls, 0)?;
    }
    recurse(tree, stmt, &[Class::Over], group_over, 0)?;
    recurse(tree, stmt, &[Class::Function], group_functions, 0)?;
    recurse(tree, stmt, &[Class::Where], group_where, 0)?;
    let always = |_: &Tree, _: Option<Id>| true;
    run_spec(
        tree,
        stmt,
        Spec {
            cls: Class::Identifier,
            matches: period_matches,
            valid_prev: period_valid_prev,
            valid_next: always,
            post: period_post,
            extend: true,
            recurse: true,
        },
    )?;
    run_spec(
        tree,
        stmt,
        Spec {
            cls: Class::Identifier,
            matches: |tr, t| tr.is_instance(t, Class::SquareBrackets),
            valid_prev: arrays_valid_prev,
            valid_next: always,
            post: post_prev_this,
            extend: true,
            recurse: false,
        },
    )?;
    recurse(tree, stmt, &[Class::Identifier], group_identifier, 0)?;
    recurse(tree, stmt, &[Class::Identifier], group_order, 0)?;
    run_spec(
        tree,
        stmt,
        Spec {
            cls: Class::Identifier,
            matches: typecast_matches,
            valid_prev: not_none,
            valid_next: not_none,
            post: post_prev_next,
            extend: true,
            recurse: true,
        },
    )?;
    run_spec(
        tree,
        stmt,
        Spec {
            cls: Class::Identifier,
            matches: tzcast_matches,
            valid_prev: not_none,
            valid_next: tzcast_valid_next,
            post: post_prev_next,
            extend: true,
            recurse: true,
        },
    )?;
    run_spec(
        tree,
        stmt,
        Spec {
            cls: Class::TypedLiteral,
            matches: typed_literal_matches,
            valid_prev: not_none,
            valid_next: typed_literal_valid_next,
            post: post_this_next,
            extend: false,
            recurse: true,
        },
    )?;
    run_spec(
        tree,
        stmt,
        Spec {
            cls: Class::TypedLiteral,
            matches: typed_literal_extends,
            valid_prev: not_none,
            valid_next: typed_literal_valid_final,
            post: post_this_next,
            extend: true,
            recurse: true,
        },
    )?;
    run_spec(
        tree,
        stmt,
        Spec {
            cls: Class::Operation,
            matches: operator_matches,
            valid_prev: operator_valid,
            valid_next: operator_valid,
            post: operator_post,
            extend: false,
            recurse: true,
        },
    )?;
    run_spec(
        tree,
        stmt,
        Spec {
            cls: Class::Comparison,
            matches: comparison_matches,
            valid_prev: comparison_valid,
            valid_next: comparison_valid,
            post: post_prev_next,
            extend: false,
            recurse: true,
        },
    )?;
    run_spec(
        tree,
        stmt,
        Spec {
            cls: Class::Identifier,
            matches: as_matches,
            valid_prev: as_valid_prev,
            valid_next: as_valid_next,
            post: post_prev_next,
            extend: true,
            recurse: true,
        },
    )?;
    recurse(tree, stmt, &[], group_aliased, 0)?;
    run_spec(
        tree,
        stmt,
        Spec {
            cls: Class::Assignment,
            matches: assignment_matches,
            valid_prev: assignment_valid,
            valid_next: assignment_valid,
            post: assignment_post,
            extend: true,
            recurse: true,
        },
    )?;
    recurse(tree, stmt, &[], align_comments, 0)?;
    run_spec(
        tree,
        stmt,
        Spec {
            cls: Class::IdentifierList,
            matches: comma_matches,
            valid_prev: list_item_valid,
            valid_next: list_item_valid,
            post: post_prev_next,
            extend: true,
            recurse: true,
        },
    )?;
    group_values(tree, stmt)
}
