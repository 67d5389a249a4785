//! sqlglot's parser (`sqlglot/parser.py`, `Parser`, with the settings of its default dialect's
//! `BaseParser` and of `SQLiteParser`), for the queries Spider/BIRD-style text-to-SQL produces.
//!
//! The recursive descent follows sqlglot's method for method (`_parse_statement`,
//! `_parse_expression`, `_parse_disjunction`, ..., `_parse_select`, `_parse_table`,
//! `_parse_join`, ...), with its error level `IMMEDIATE`: the first error ends the parse.
//!
//! The port is partial on purpose. Every branch sqlglot would take that is not reproduced here
//! (window functions, `INTERVAL`, `VALUES`, DDL/DML statements, pivots, lambdas, comments, ...)
//! ends the parse with [`ParseError::Unsupported`] instead of a guess, so that a caller can tell
//! "sqlglot's outcome is known" from "it is not".

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::OnceLock;

use super::ast::{Arg, Expr};
use super::tables::{self, TokenType as TT};
use super::tokenizer::{tokenize, Dialect, Token};

/// Why [`parse`] or [`parse_one`] gave no tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// sqlglot raises `ParseError` or `TokenError` on this input (the message is ours).
    Syntax(String),
    /// The input takes a path of sqlglot's parser this port does not reproduce (or nests deeper
    /// than it follows): sqlglot's outcome is unknown.
    Unsupported(String),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Syntax(m) => write!(f, "sqlglot would fail to parse the SQL: {m}"),
            ParseError::Unsupported(m) => {
                write!(f, "outside the ported part of sqlglot's parser: {m}")
            }
        }
    }
}

impl std::error::Error for ParseError {}

type PResult<T> = Result<T, ParseError>;

fn unsupported<T>(what: &str) -> PResult<T> {
    Err(ParseError::Unsupported(what.to_string()))
}

/// How deep the descent may go (counted at unary operands, parentheses, queries and tables)
/// before the port gives up; sqlglot itself overflows Python's recursion limit a little further
/// down (about 55 nested parentheses from a shallow call stack).
const MAX_DEPTH: usize = 40;

/// `sqlglot.parse(sql, read=dialect)`: one entry per statement (statements are split on `;`),
/// `None` for an empty statement.
///
/// Errors: [`ParseError::Syntax`] where sqlglot raises `TokenError` or `ParseError`
/// (including "Invalid expression / Unexpected token" for leftover tokens and missing required
/// arguments), [`ParseError::Unsupported`] where the outcome is not reproduced.
pub fn parse(sql: &str, dialect: Dialect) -> Result<Vec<Option<Expr>>, ParseError> {
    let tokens = tokenize(sql, dialect).map_err(|e| ParseError::Syntax(e.to_string()))?;
    if tokens.iter().any(|t| !t.comments.is_empty()) {
        return unsupported("comments");
    }
    // `Parser._parse`: split on semicolons (a semicolon carrying comments would be its own
    // chunk, but comments are refused above).
    let total = tokens.len();
    let mut chunks: Vec<Vec<Token>> = vec![Vec::new()];
    for (i, token) in tokens.into_iter().enumerate() {
        if token.token_type == TT::Semicolon {
            if i + 1 < total {
                chunks.push(Vec::new());
            }
        } else if let Some(last) = chunks.last_mut() {
            last.push(token);
        }
    }
    let mut p = Parser {
        dialect,
        t: tables_for(dialect),
        tokens: Vec::new(),
        index: 0,
        depth: 0,
    };
    // `_parse_batch_statements(sep_first_statement=False)`.
    let mut expressions: Vec<Option<Expr>> = Vec::new();
    for chunk in chunks {
        p.tokens = chunk;
        p.index = 0;
        p.depth = 0;
        if p.is(TT::Else) {
            return Ok(expressions);
        }
        if !expressions.is_empty() && p.next().is_none() && p.is(TT::End) {
            p.advance(1);
            expressions.push(Some(Expr::new("EndStatement")));
            continue;
        }
        let stmt = p.parse_statement()?;
        expressions.push(stmt);
        if (p.index as usize) < p.tokens.len() {
            return Err(p.error("Invalid expression / Unexpected token"));
        }
    }
    Ok(expressions)
}

/// `sqlglot.parse_one(sql, read=dialect)`: the single statement's tree, or a `Block` of all of
/// them when there are several.
///
/// Errors: as [`parse`], plus [`ParseError::Syntax`] when nothing was parsed (empty input or an
/// empty first statement), which sqlglot raises as "No expression was parsed". A `Block` that
/// would hold an empty statement is [`ParseError::Unsupported`] (sqlglot keeps a `None` there,
/// which this tree type cannot hold).
pub fn parse_one(sql: &str, dialect: Dialect) -> Result<Expr, ParseError> {
    let mut result = parse(sql, dialect)?;
    if !matches!(result.first(), Some(Some(_))) {
        return Err(ParseError::Syntax(format!("No expression was parsed from {sql:?}")));
    }
    if result.len() == 1 {
        // Moved out, not cloned: a derived clone recurses, and chains make deep trees.
        return Ok(result.pop().flatten().expect("checked above"));
    }
    let mut exprs = Vec::new();
    for e in result {
        match e {
            Some(e) => exprs.push(e),
            None => return unsupported("a Block holding an empty statement"),
        }
    }
    Ok(Expr::new("Block").with("expressions", Arg::List(exprs)))
}

// ---------------------------------------------------------------------------------------------
// Tables

struct Tables {
    id_var: HashSet<TT>,
    table_alias: HashSet<TT>,
    alias: HashSet<TT>,
    func: HashSet<TT>,
    reserved: HashSet<TT>,
    types: HashSet<TT>,
    table_terminators: HashSet<TT>,
    table_postfix: HashSet<TT>,
    colon_placeholder: HashSet<TT>,
    nested_type: HashSet<TT>,
    struct_type: HashSet<TT>,
    enum_type: HashSet<TT>,
    aggregate_type: HashSet<TT>,
    timestamps: HashSet<TT>,
    statement: HashSet<TT>,
    range: HashSet<TT>,
    query_modifier: HashSet<TT>,
    unary: HashSet<TT>,
    primary: HashSet<TT>,
    column_operators: HashSet<TT>,
    commands: HashSet<TT>,
    no_paren_functions: HashMap<TT, &'static str>,
    function_parsers: HashSet<&'static str>,
    no_paren_function_parsers: HashSet<&'static str>,
    functions: HashMap<&'static str, &'static str>,
}

fn set(v: &[TT]) -> HashSet<TT> {
    v.iter().copied().collect()
}

fn tables_for(dialect: Dialect) -> &'static Tables {
    static DEFAULT: OnceLock<Tables> = OnceLock::new();
    static SQLITE: OnceLock<Tables> = OnceLock::new();
    match dialect {
        Dialect::Default => DEFAULT.get_or_init(|| Tables {
            id_var: set(tables::DEFAULT_ID_VAR_TOKENS),
            table_alias: set(tables::DEFAULT_TABLE_ALIAS_TOKENS),
            alias: set(tables::DEFAULT_ALIAS_TOKENS),
            func: set(tables::DEFAULT_FUNC_TOKENS),
            reserved: set(tables::DEFAULT_RESERVED_TOKENS),
            types: set(tables::DEFAULT_TYPE_TOKENS),
            table_terminators: set(tables::DEFAULT_TABLE_TERMINATORS),
            table_postfix: set(tables::DEFAULT_TABLE_POSTFIX_TOKENS),
            colon_placeholder: set(tables::DEFAULT_COLON_PLACEHOLDER_TOKENS),
            nested_type: set(tables::DEFAULT_NESTED_TYPE_TOKENS),
            struct_type: set(tables::DEFAULT_STRUCT_TYPE_TOKENS),
            enum_type: set(tables::DEFAULT_ENUM_TYPE_TOKENS),
            aggregate_type: set(tables::DEFAULT_AGGREGATE_TYPE_TOKENS),
            timestamps: set(tables::DEFAULT_TIMESTAMPS),
            statement: set(tables::DEFAULT_STATEMENT_PARSERS_KEYS),
            range: set(tables::DEFAULT_RANGE_PARSERS_KEYS),
            query_modifier: set(tables::DEFAULT_QUERY_MODIFIER_PARSERS_KEYS),
            unary: set(tables::DEFAULT_UNARY_PARSERS_KEYS),
            primary: set(tables::DEFAULT_PRIMARY_PARSERS_KEYS),
            column_operators: set(tables::DEFAULT_COLUMN_OPERATORS_KEYS),
            commands: set(tables::DEFAULT_COMMANDS),
            no_paren_functions: tables::DEFAULT_NO_PAREN_FUNCTIONS.iter().copied().collect(),
            function_parsers: tables::DEFAULT_FUNCTION_PARSERS.iter().copied().collect(),
            no_paren_function_parsers: tables::DEFAULT_NO_PAREN_FUNCTION_PARSERS
                .iter()
                .copied()
                .collect(),
            functions: tables::DEFAULT_FUNCTIONS.iter().copied().collect(),
        }),
        Dialect::Sqlite => SQLITE.get_or_init(|| Tables {
            id_var: set(tables::SQLITE_ID_VAR_TOKENS),
            table_alias: set(tables::SQLITE_TABLE_ALIAS_TOKENS),
            alias: set(tables::SQLITE_ALIAS_TOKENS),
            func: set(tables::SQLITE_FUNC_TOKENS),
            reserved: set(tables::SQLITE_RESERVED_TOKENS),
            types: set(tables::SQLITE_TYPE_TOKENS),
            table_terminators: set(tables::SQLITE_TABLE_TERMINATORS),
            table_postfix: set(tables::SQLITE_TABLE_POSTFIX_TOKENS),
            colon_placeholder: set(tables::SQLITE_COLON_PLACEHOLDER_TOKENS),
            nested_type: set(tables::SQLITE_NESTED_TYPE_TOKENS),
            struct_type: set(tables::SQLITE_STRUCT_TYPE_TOKENS),
            enum_type: set(tables::SQLITE_ENUM_TYPE_TOKENS),
            aggregate_type: set(tables::SQLITE_AGGREGATE_TYPE_TOKENS),
            timestamps: set(tables::SQLITE_TIMESTAMPS),
            statement: set(tables::SQLITE_STATEMENT_PARSERS_KEYS),
            range: set(tables::SQLITE_RANGE_PARSERS_KEYS),
            query_modifier: set(tables::SQLITE_QUERY_MODIFIER_PARSERS_KEYS),
            unary: set(tables::SQLITE_UNARY_PARSERS_KEYS),
            primary: set(tables::SQLITE_PRIMARY_PARSERS_KEYS),
            column_operators: set(tables::SQLITE_COLUMN_OPERATORS_KEYS),
            commands: set(tables::SQLITE_COMMANDS),
            no_paren_functions: tables::SQLITE_NO_PAREN_FUNCTIONS.iter().copied().collect(),
            function_parsers: tables::SQLITE_FUNCTION_PARSERS.iter().copied().collect(),
            no_paren_function_parsers: tables::SQLITE_NO_PAREN_FUNCTION_PARSERS
                .iter()
                .copied()
                .collect(),
            functions: tables::SQLITE_FUNCTIONS.iter().copied().collect(),
        }),
    }
}

type ClassInfo = (u8, &'static [(&'static str, bool)]);

fn class_info(name: &str) -> Option<ClassInfo> {
    static CLASSES: OnceLock<HashMap<&'static str, ClassInfo>> = OnceLock::new();
    CLASSES
        .get_or_init(|| {
            tables::CLASSES
                .iter()
                .map(|(n, f, a)| (*n, (*f, *a)))
                .collect()
        })
        .get(name)
        .copied()
}

fn has_flag(e: &Expr, flag: u8) -> bool {
    class_info(&e.class).is_some_and(|(f, _)| f & flag != 0)
}

// ---------------------------------------------------------------------------------------------
// Node helpers

fn node(class: &str, args: Vec<(&str, Option<Arg>)>) -> Expr {
    let mut e = Expr::new(class);
    for (k, v) in args {
        if let Some(v) = v {
            e.args.push((k.to_string(), v));
        }
    }
    e
}

fn ex(e: Expr) -> Option<Arg> {
    Some(Arg::Expr(Box::new(e)))
}

fn oex(e: Option<Expr>) -> Option<Arg> {
    e.map(|e| Arg::Expr(Box::new(e)))
}

fn lst(v: Vec<Expr>) -> Option<Arg> {
    Some(Arg::List(v))
}

fn st(s: &str) -> Option<Arg> {
    Some(Arg::Str(s.to_string()))
}

fn bl(b: bool) -> Option<Arg> {
    Some(Arg::Bool(b))
}

fn identifier(text: &str, quoted: bool) -> Expr {
    node(
        "Identifier",
        vec![("this", st(text)), ("quoted", bl(quoted))],
    )
}

fn binary(class: &str, this: Option<Expr>, expression: Option<Expr>) -> Expr {
    node(
        class,
        vec![("this", oex(this)), ("expression", oex(expression))],
    )
}

fn take_child(e: &mut Expr, key: &str) -> Option<Expr> {
    let pos = e.args.iter().position(|(k, _)| k == key)?;
    match e.args.remove(pos).1 {
        Arg::Expr(b) => Some(*b),
        other => {
            e.args.insert(pos, (key.to_string(), other));
            None
        }
    }
}

fn upper(s: &str) -> String {
    s.to_uppercase()
}

// ---------------------------------------------------------------------------------------------
// The parser

struct Parser {
    dialect: Dialect,
    t: &'static Tables,
    tokens: Vec<Token>,
    index: isize,
    depth: usize,
}

/// What `_parse_function_call` was asked for.
#[derive(Clone, Copy)]
struct FuncOpts {
    anonymous: bool,
    optional_parens: bool,
    any_token: bool,
}

const FUNC_DEFAULT: FuncOpts = FuncOpts {
    anonymous: false,
    optional_parens: true,
    any_token: false,
};

impl Parser {
    // ---- token access (`_curr`, `_next`, `_prev`, `_advance`, `_retreat`, `_match*`)

    fn curr(&self) -> Option<&Token> {
        if self.index < 0 {
            return None;
        }
        self.tokens.get(self.index as usize)
    }

    fn next(&self) -> Option<&Token> {
        let i = self.index + 1;
        if i < 0 {
            return None;
        }
        self.tokens.get(i as usize)
    }

    fn prev(&self) -> Option<&Token> {
        if self.index < 1 {
            return None;
        }
        self.tokens.get(self.index as usize - 1)
    }

    fn ct(&self) -> Option<TT> {
        self.curr().map(|t| t.token_type)
    }

    fn nt(&self) -> Option<TT> {
        self.next().map(|t| t.token_type)
    }

    fn pt(&self) -> Option<TT> {
        self.prev().map(|t| t.token_type)
    }

    fn prev_text(&self) -> String {
        self.prev().map(|t| t.text.clone()).unwrap_or_default()
    }

    fn is(&self, tt: TT) -> bool {
        self.ct() == Some(tt)
    }

    fn in_set(&self, s: &HashSet<TT>) -> bool {
        self.ct().is_some_and(|t| s.contains(&t))
    }

    fn advance(&mut self, n: isize) {
        self.index += n;
    }

    fn retreat(&mut self, index: isize) {
        self.index = index;
    }

    fn m(&mut self, tt: TT) -> bool {
        if self.is(tt) {
            self.advance(1);
            true
        } else {
            false
        }
    }

    fn m_set(&mut self, s: &HashSet<TT>) -> bool {
        if self.in_set(s) {
            self.advance(1);
            true
        } else {
            false
        }
    }

    fn m_any(&mut self, tts: &[TT]) -> bool {
        if self.ct().is_some_and(|t| tts.contains(&t)) {
            self.advance(1);
            true
        } else {
            false
        }
    }

    fn m_pair(&mut self, a: TT, b: TT, advance: bool) -> bool {
        if self.ct() == Some(a) && self.nt() == Some(b) {
            if advance {
                self.advance(2);
            }
            true
        } else {
            false
        }
    }

    fn curr_text_is(&self, texts: &[&str]) -> bool {
        match self.curr() {
            Some(t) if t.token_type != TT::String => texts.contains(&upper(&t.text).as_str()),
            _ => false,
        }
    }

    fn m_texts(&mut self, texts: &[&str]) -> bool {
        if self.curr_text_is(texts) {
            self.advance(1);
            true
        } else {
            false
        }
    }

    fn m_text_seq(&mut self, texts: &[&str]) -> bool {
        let index = self.index;
        for text in texts {
            if self.curr_text_is(&[text]) {
                self.advance(1);
            } else {
                self.retreat(index);
                return false;
            }
        }
        true
    }

    fn peek_text_seq(&mut self, texts: &[&str]) -> bool {
        let index = self.index;
        let r = self.m_text_seq(texts);
        self.retreat(index);
        r
    }

    fn error(&self, msg: &str) -> ParseError {
        ParseError::Syntax(msg.to_string())
    }

    fn match_r_paren(&mut self) -> PResult<()> {
        if !self.m(TT::RParen) {
            return Err(self.error("Expecting )"));
        }
        Ok(())
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return unsupported("nesting deeper than the port follows");
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// `validate_expression`: the class's required arguments must be set (a list must be
    /// non-empty); with `nargs`, a `Func` that is not variadic must not get more arguments
    /// than it has.
    fn validate(&self, e: Expr, nargs: Option<usize>) -> PResult<Expr> {
        let Some((flags, arg_types)) = class_info(&e.class) else {
            return unsupported(&format!("class {}", e.class));
        };
        for (k, required) in arg_types {
            if *required {
                let missing = match e.arg(k) {
                    None => true,
                    Some(Arg::List(l)) => l.is_empty(),
                    Some(_) => false,
                };
                if missing {
                    return Err(
                        self.error(&format!("Required keyword: '{k}' missing for {}", e.class))
                    );
                }
            }
        }
        if let Some(n) = nargs {
            if flags & tables::CLASS_FUNC != 0
                && n > arg_types.len()
                && flags & tables::CLASS_VAR_LEN_ARGS == 0
            {
                return Err(self.error("too many arguments"));
            }
        }
        Ok(e)
    }

    /// `Parser.expression`: validates a non-primitive node.
    fn expression(&self, e: Expr) -> PResult<Expr> {
        if has_flag(&e, tables::CLASS_PRIMITIVE) {
            return Ok(e);
        }
        self.validate(e, None)
    }

    // ---- statements

    fn parse_statement(&mut self) -> PResult<Option<Expr>> {
        if self.curr().is_none() {
            return Ok(None);
        }
        if self.in_set(&self.t.statement) {
            return unsupported(&format!(
                "statement {}",
                self.ct().map(|t| t.name()).unwrap_or("")
            ));
        }
        if self.in_set(&self.t.commands) {
            return unsupported("command");
        }
        if self.peek_text_seq(&["WHILE"]) {
            return unsupported("WHILE");
        }
        let expression = self.parse_expression()?;
        let expression = match expression {
            Some(e) => self.parse_set_operations(Some(e))?,
            None => self.parse_select(false, false, true, true)?,
        };
        if expression.as_ref().is_some_and(|e| e.is("Subquery")) && self.is(TT::PipeGt) {
            return unsupported("pipe syntax");
        }
        self.parse_query_modifiers(expression)
    }

    // ---- the expression chain

    fn parse_expression(&mut self) -> PResult<Option<Expr>> {
        let this = self.parse_assignment()?;
        self.parse_alias(this, false)
    }

    fn parse_assignment(&mut self) -> PResult<Option<Expr>> {
        let this = self.parse_disjunction()?;
        if (this.is_none() && self.nt() == Some(TT::ColonEq)) || self.is(TT::ColonEq) {
            return unsupported(":=");
        }
        Ok(this)
    }

    fn parse_disjunction(&mut self) -> PResult<Option<Expr>> {
        let mut this = self.parse_conjunction()?;
        while self.m(TT::Or) {
            let e = self.parse_conjunction()?;
            this = Some(self.expression(binary("Or", this, e))?);
        }
        Ok(this)
    }

    fn parse_conjunction(&mut self) -> PResult<Option<Expr>> {
        let mut this = self.parse_equality()?;
        while self.m(TT::And) {
            let e = self.parse_equality()?;
            this = Some(self.expression(binary("And", this, e))?);
        }
        Ok(this)
    }

    fn parse_equality(&mut self) -> PResult<Option<Expr>> {
        let mut this = self.parse_comparison()?;
        loop {
            let class = match self.ct() {
                Some(TT::Eq) => "EQ",
                Some(TT::Neq) => "NEQ",
                Some(TT::NullsafeEq) => "NullSafeEQ",
                _ => break,
            };
            self.advance(1);
            let e = self.parse_comparison()?;
            this = Some(self.expression(binary(class, this, e))?);
        }
        Ok(this)
    }

    fn parse_comparison(&mut self) -> PResult<Option<Expr>> {
        let mut this = self.parse_range(None)?;
        loop {
            let class = match self.ct() {
                Some(TT::Gt) => "GT",
                Some(TT::Gte) => "GTE",
                Some(TT::Lt) => "LT",
                Some(TT::Lte) => "LTE",
                _ => break,
            };
            self.advance(1);
            let e = self.parse_range(None)?;
            this = Some(self.expression(binary(class, this, e))?);
        }
        Ok(this)
    }

    fn parse_range(&mut self, this: Option<Expr>) -> PResult<Option<Expr>> {
        let mut this = match this {
            Some(t) => Some(t),
            None => self.parse_bitwise()?,
        };
        let negate = self.m(TT::Not);
        if self.in_set(&self.t.range) {
            let tt = self.ct().unwrap_or(TT::Sentinel);
            self.advance(1);
            let expression = match tt {
                TT::Between => Some(self.parse_between(this.clone())?),
                TT::In => Some(self.parse_in(this.clone())?),
                TT::Is => self.parse_is(this.clone())?,
                TT::Like => Some(self.parse_binary_range("Like", this.clone())?),
                TT::Ilike => Some(self.parse_binary_range("ILike", this.clone())?),
                TT::Glob => Some(self.parse_binary_range("Glob", this.clone())?),
                TT::Rlike => Some(self.parse_binary_range("RegexpLike", this.clone())?),
                TT::Irlike => Some(self.parse_binary_range("RegexpILike", this.clone())?),
                TT::SimilarTo => Some(self.parse_binary_range("SimilarTo", this.clone())?),
                TT::Overlaps => Some(self.parse_binary_range("Overlaps", this.clone())?),
                TT::Match if self.dialect == Dialect::Sqlite => {
                    Some(self.parse_binary_range("Match", this.clone())?)
                }
                other => return unsupported(&format!("range operator {}", other.name())),
            };
            match expression {
                None => return Ok(this),
                Some(e) => this = Some(e),
            }
        } else if self.m(TT::Isnull) || (negate && self.m(TT::Null)) {
            this = Some(self.expression(binary("Is", this, Some(Expr::new("Null"))))?);
        }
        if self.m(TT::Notnull) {
            let is = self.expression(binary("Is", this, Some(Expr::new("Null"))))?;
            this = Some(self.expression(node("Not", vec![("this", ex(is))]))?);
        }
        if negate {
            this = self.negate_range(this)?;
        }
        if self.m(TT::Is) {
            this = self.parse_is(this)?;
        }
        Ok(this)
    }

    fn negate_range(&mut self, this: Option<Expr>) -> PResult<Option<Expr>> {
        let Some(mut this) = this else {
            return Ok(None);
        };
        if this.is("Escape") {
            if let Some(Arg::Expr(inner)) = this
                .args
                .iter_mut()
                .find(|(k, _)| k == "this")
                .map(|(_, v)| v)
            {
                if inner.is("Like") || inner.is("ILike") {
                    inner.set("negate", Arg::Bool(true));
                    return Ok(Some(this));
                }
            }
        } else if this.is("Like") || this.is("ILike") {
            this.set("negate", Arg::Bool(true));
            return Ok(Some(this));
        }
        Ok(Some(
            self.expression(node("Not", vec![("this", ex(this))]))?,
        ))
    }

    fn parse_is(&mut self, this: Option<Expr>) -> PResult<Option<Expr>> {
        let index = self.index - 1;
        let negate = self.m(TT::Not);
        if self.m_text_seq(&["DISTINCT", "FROM"]) {
            let class = if negate { "NullSafeEQ" } else { "NullSafeNEQ" };
            let e = self.parse_bitwise()?;
            return Ok(Some(self.expression(binary(class, this, e))?));
        }
        if self.is(TT::Json) {
            return unsupported("IS JSON");
        }
        let expression = match self.parse_null()? {
            Some(e) => Some(e),
            None => self.parse_bitwise()?,
        };
        let Some(expression) = expression else {
            self.retreat(index);
            return Ok(None);
        };
        let mut this = self.expression(binary("Is", this, Some(expression)))?;
        if negate {
            this = self.expression(node("Not", vec![("this", ex(this))]))?;
        }
        self.parse_column_ops(Some(this))
    }

    fn parse_in(&mut self, this: Option<Expr>) -> PResult<Expr> {
        if self.m_pair(TT::Unnest, TT::LParen, false) {
            return unsupported("IN UNNEST");
        }
        if self.m_any(&[TT::LParen, TT::LBracket]) {
            let matched_l_paren = self.pt() == Some(TT::LParen);
            let expressions = self.parse_csv(|p| p.parse_select_or_expression(false))?;
            let result = if expressions.len() == 1 && has_flag(&expressions[0], tables::CLASS_QUERY)
            {
                let query = expressions
                    .into_iter()
                    .next()
                    .unwrap_or_else(|| Expr::new("Select"));
                let query = self
                    .parse_query_modifiers(Some(query))?
                    .unwrap_or_else(|| Expr::new("Select"));
                let sub = node("Subquery", vec![("this", ex(query))]);
                self.expression(node("In", vec![("this", oex(this)), ("query", ex(sub))]))?
            } else {
                self.expression(node(
                    "In",
                    vec![("this", oex(this)), ("expressions", lst(expressions))],
                ))?
            };
            if matched_l_paren {
                self.match_r_paren()?;
            } else if !self.m(TT::RBracket) {
                return Err(self.error("Expecting ]"));
            }
            return Ok(result);
        }
        let field = self.parse_column()?;
        self.expression(node("In", vec![("this", oex(this)), ("field", oex(field))]))
    }

    fn parse_between(&mut self, this: Option<Expr>) -> PResult<Expr> {
        let symmetric = if self.m_text_seq(&["SYMMETRIC"]) {
            Some(true)
        } else if self.m_text_seq(&["ASYMMETRIC"]) {
            Some(false)
        } else {
            None
        };
        let low = self.parse_bitwise()?;
        self.m(TT::And);
        let high = self.parse_bitwise()?;
        self.expression(node(
            "Between",
            vec![
                ("this", oex(this)),
                ("low", oex(low)),
                ("high", oex(high)),
                ("symmetric", symmetric.and_then(bl)),
            ],
        ))
    }

    fn parse_binary_range(&mut self, class: &str, this: Option<Expr>) -> PResult<Expr> {
        let expression = self.parse_bitwise()?;
        let e = self.expression(binary(class, this, expression))?;
        self.parse_escape(e)
    }

    fn parse_escape(&mut self, this: Expr) -> PResult<Expr> {
        if !self.m(TT::Escape) {
            return Ok(this);
        }
        let e = match self.parse_string()? {
            Some(e) => Some(e),
            None => self.parse_null()?,
        };
        self.expression(binary("Escape", Some(this), e))
    }

    fn parse_bitwise(&mut self) -> PResult<Option<Expr>> {
        let mut this = self.parse_term()?;
        loop {
            let class = match self.ct() {
                Some(TT::Amp) => Some("BitwiseAnd"),
                Some(TT::Caret) => Some("BitwiseXor"),
                Some(TT::Pipe) => Some("BitwiseOr"),
                _ => None,
            };
            if let Some(class) = class {
                self.advance(1);
                let e = self.parse_term()?;
                this = Some(self.expression(binary(class, this, e))?);
            } else if self.m(TT::Dpipe) {
                // DPIPE_IS_STRING_CONCAT and not STRICT_STRING_CONCAT in both dialects.
                let e = self.parse_term()?;
                this = Some(self.expression(node(
                    "DPipe",
                    vec![
                        ("this", oex(this)),
                        ("expression", oex(e)),
                        ("safe", bl(true)),
                    ],
                ))?);
            } else if self.m(TT::Dqmark) {
                let e = self.parse_term()?;
                let list = e.into_iter().collect();
                this = Some(self.expression(node(
                    "Coalesce",
                    vec![("this", oex(this)), ("expressions", lst(list))],
                ))?);
            } else if self.m_pair(TT::Lt, TT::Lt, true) {
                let e = self.parse_term()?;
                this = Some(self.expression(binary("BitwiseLeftShift", this, e))?);
            } else if self.m_pair(TT::Gt, TT::Gt, true) {
                let e = self.parse_term()?;
                this = Some(self.expression(binary("BitwiseRightShift", this, e))?);
            } else {
                break;
            }
        }
        Ok(this)
    }

    fn parse_term(&mut self) -> PResult<Option<Expr>> {
        let mut this = self.parse_factor()?;
        loop {
            let class = match self.ct() {
                Some(TT::Dash) => "Sub",
                Some(TT::Plus) => "Add",
                Some(TT::Mod) => "Mod",
                Some(TT::Collate) => return unsupported("COLLATE"),
                _ => break,
            };
            self.advance(1);
            let e = self.parse_factor()?;
            this = Some(self.expression(binary(class, this, e))?);
        }
        Ok(this)
    }

    fn parse_factor(&mut self) -> PResult<Option<Expr>> {
        let this = self.parse_unary()?;
        let mut this = self.parse_at_time_zone(this)?;
        loop {
            let class = match self.ct() {
                Some(TT::Div) => "IntDiv",
                Some(TT::LrArrow) => "Distance",
                Some(TT::Slash) => "Div",
                Some(TT::Star) => "Mul",
                _ => break,
            };
            self.advance(1);
            let e = self.parse_unary()?;
            if e.is_none()
                && class == "IntDiv"
                && self.prev_text().chars().all(|c| c.is_alphabetic())
                && !self.prev_text().is_empty()
            {
                self.retreat(self.index - 1);
                return Ok(this);
            }
            let mut n = self.expression(binary(class, this, e))?;
            if class == "Div" {
                let (typed, safe) = match self.dialect {
                    Dialect::Default => (false, false),
                    Dialect::Sqlite => (true, true),
                };
                n.set("typed", Arg::Bool(typed));
                n.set("safe", Arg::Bool(safe));
            }
            this = Some(n);
        }
        Ok(this)
    }

    fn parse_at_time_zone(&mut self, this: Option<Expr>) -> PResult<Option<Expr>> {
        if self.peek_text_seq(&["AT", "TIME", "ZONE"]) {
            return unsupported("AT TIME ZONE");
        }
        Ok(this)
    }

    fn parse_unary(&mut self) -> PResult<Option<Expr>> {
        self.enter()?;
        let r = self.parse_unary_inner();
        self.leave();
        r
    }

    fn parse_unary_inner(&mut self) -> PResult<Option<Expr>> {
        if self.in_set(&self.t.unary) {
            let tt = self.ct().unwrap_or(TT::Sentinel);
            self.advance(1);
            return match tt {
                TT::Plus => self.parse_unary(),
                TT::Not => {
                    let e = self.parse_equality()?;
                    Ok(Some(self.expression(node("Not", vec![("this", oex(e))]))?))
                }
                TT::Tilde => {
                    let e = self.parse_unary()?;
                    Ok(Some(
                        self.expression(node("BitwiseNot", vec![("this", oex(e))]))?,
                    ))
                }
                TT::Dash => {
                    let e = self.parse_unary()?;
                    Ok(Some(self.expression(node("Neg", vec![("this", oex(e))]))?))
                }
                other => unsupported(&format!("unary {}", other.name())),
            };
        }
        self.parse_type()
    }

    fn parse_type(&mut self) -> PResult<Option<Expr>> {
        if let Some(atom) = self.parse_atom()? {
            return Ok(Some(atom));
        }
        if self.is(TT::Interval) {
            return unsupported("INTERVAL");
        }
        let index = self.index;
        let data_type = self.parse_types(true, false, false)?;
        if let Some(data_type) = data_type {
            let index2 = self.index;
            let this = self.parse_primary()?;
            if let Some(this) = this.filter(|e| e.is("Literal")) {
                let this = self.parse_column_ops(Some(this))?;
                if data_type.str_arg("this") == Some("JSON") {
                    return unsupported("JSON literal");
                }
                return Ok(Some(self.expression(node(
                    "Cast",
                    vec![("this", oex(this)), ("to", ex(data_type))],
                ))?));
            }
            if !data_type.list("expressions").is_empty() && index2 - index > 1 {
                self.retreat(index2);
                return self.parse_column_ops(Some(data_type));
            }
            self.retreat(index);
        }
        self.parse_column()
    }

    /// `_parse_types` for plain type keywords with optional size parameters; nested, struct,
    /// enum, aggregate and user-defined types are not ported.
    fn parse_types(
        &mut self,
        check_func: bool,
        allow_identifiers: bool,
        with_collation: bool,
    ) -> PResult<Option<Expr>> {
        let index = self.index;
        let type_token;
        if self.in_set(&self.t.types) {
            type_token = self.ct().unwrap_or(TT::Sentinel);
            self.advance(1);
        } else {
            if !allow_identifiers {
                return Ok(None);
            }
            // `_parse_id_var(any_token=False, tokens=(VAR,))`
            if self.is(TT::Identifier) || self.is(TT::Var) {
                return unsupported("type given by an identifier");
            }
            if self.parse_placeholder()?.is_some() {
                return Ok(None);
            }
            return Ok(None);
        }
        match type_token {
            TT::PseudoType | TT::ObjectIdentifier | TT::Interval | TT::Void | TT::Vector => {
                return unsupported(&format!("type {}", type_token.name()))
            }
            _ => {}
        }
        let nested = self.t.nested_type.contains(&type_token);
        let is_struct = self.t.struct_type.contains(&type_token);
        let special = nested
            || is_struct
            || self.t.enum_type.contains(&type_token)
            || self.t.aggregate_type.contains(&type_token)
            || type_token == TT::Json
            || type_token == TT::Map;
        let mut expressions: Option<Vec<Expr>> = None;
        let mut maybe_func = false;
        if self.is(TT::LParen) {
            if special {
                return unsupported(&format!("parameterized type {}", type_token.name()));
            }
            self.advance(1);
            let exprs = self.parse_csv(|p| p.parse_type_size())?;
            if !self.m(TT::RParen) {
                self.retreat(index);
                return Ok(None);
            }
            expressions = Some(exprs);
            maybe_func = true;
        }
        if nested && self.is(TT::Lt) {
            return unsupported("nested type with <>");
        }
        if self.t.timestamps.contains(&type_token)
            && (self.peek_text_seq(&["WITH", "TIME", "ZONE"])
                || self.peek_text_seq(&["WITH", "LOCAL", "TIME", "ZONE"])
                || self.peek_text_seq(&["WITHOUT", "TIME", "ZONE"]))
        {
            return unsupported("time zone type");
        }
        if maybe_func && check_func {
            let index2 = self.index;
            let peek = self.parse_string()?;
            if peek.is_none() {
                self.retreat(index);
                return Ok(None);
            }
            self.retreat(index2);
        }
        if self.peek_text_seq(&["UNSIGNED"]) {
            return unsupported("UNSIGNED");
        }
        if type_token == TT::Nullable && expressions.as_ref().is_none_or(|e| e.is_empty()) {
            self.retreat(index);
            return Ok(None);
        }
        let this = node(
            "DataType",
            vec![
                ("this", st(type_token.name())),
                ("expressions", expressions.map(Arg::List)),
                ("nested", bl(nested)),
            ],
        );
        if self.is(TT::List) || self.is(TT::Array) || self.is(TT::LBracket) {
            return unsupported("array/list type");
        }
        if with_collation && self.is(TT::Collate) {
            return unsupported("type COLLATE");
        }
        Ok(Some(this))
    }

    fn parse_type_size(&mut self) -> PResult<Option<Expr>> {
        let Some(mut this) = self.parse_type()? else {
            return Ok(None);
        };
        if this.is("Column") && this.arg("table").is_none() {
            let name = this
                .child("this")
                .and_then(|i| i.str_arg("this"))
                .map(upper)
                .unwrap_or_default();
            this = node("Var", vec![("this", st(&name))]);
        }
        let e = self.parse_var(true)?;
        Ok(Some(self.expression(node(
            "DataTypeParam",
            vec![("this", ex(this)), ("expression", oex(e))],
        ))?))
    }

    /// `_parse_var(any_token=..., tokens=None, upper=False)`.
    fn parse_var(&mut self, any_token: bool) -> PResult<Option<Expr>> {
        if (any_token && self.advance_any(false)) || self.m(TT::Var) {
            return Ok(Some(node("Var", vec![("this", st(&self.prev_text()))])));
        }
        self.parse_placeholder()
    }

    fn advance_any(&mut self, ignore_reserved: bool) -> bool {
        match self.ct() {
            Some(t) if ignore_reserved || !self.t.reserved.contains(&t) => {
                self.advance(1);
                true
            }
            _ => false,
        }
    }

    fn parse_atom(&mut self) -> PResult<Option<Expr>> {
        if matches!(self.ct(), Some(TT::Identifier) | Some(TT::Var)) {
            if let Some(c) = self.parse_column()? {
                return Ok(Some(c));
            }
        }
        let Some(tt) = self.ct() else { return Ok(None) };
        if !self.t.primary.contains(&tt) {
            return Ok(None);
        }
        let next = self.nt();
        if next.is_some_and(|n| {
            self.t.column_operators.contains(&n)
                || matches!(
                    n,
                    TT::Colon | TT::JoinMarker | TT::LBrace | TT::LBracket | TT::LParen
                )
                || (tt == TT::String && n == TT::String)
        }) {
            return Ok(None);
        }
        self.advance(1);
        self.primary_parser(tt).map(Some)
    }

    /// `PRIMARY_PARSERS[token_type]`, the token just consumed.
    fn primary_parser(&mut self, tt: TT) -> PResult<Expr> {
        let text = self.prev_text();
        match tt {
            TT::String => Ok(node(
                "Literal",
                vec![("this", st(&text)), ("is_string", bl(true))],
            )),
            TT::Number => Ok(node(
                "Literal",
                vec![("this", st(&text)), ("is_string", bl(false))],
            )),
            TT::HexString => Ok(node("HexString", vec![("this", st(&text))])),
            TT::Null => Ok(Expr::new("Null")),
            TT::True => Ok(node("Boolean", vec![("this", bl(true))])),
            TT::False => Ok(node("Boolean", vec![("this", bl(false))])),
            TT::Star => self.parse_star_ops(),
            other => unsupported(&format!("primary {}", other.name())),
        }
    }

    fn parse_star_ops(&mut self) -> PResult<Expr> {
        if self.peek_text_seq(&["COLUMNS", "("]) {
            return unsupported("COLUMNS(");
        }
        if self.curr_text_is(&["EXCEPT", "EXCLUDE", "REPLACE", "RENAME"]) {
            return unsupported("star modifiers");
        }
        self.expression(Expr::new("Star"))
    }

    fn parse_column(&mut self) -> PResult<Option<Expr>> {
        if let Some(c) = self.parse_column_parts_fast()? {
            return Ok(Some(c));
        }
        let mut this = self.parse_column_reference()?;
        if this.is_none() {
            this = self.parse_bracket(None)?;
        }
        match this {
            Some(t) => self.parse_column_ops(Some(t)),
            None => Ok(None),
        }
    }

    fn parse_column_parts_fast(&mut self) -> PResult<Option<Expr>> {
        let index = self.index;
        let mut parts: Vec<Expr> = Vec::new();
        while matches!(self.ct(), Some(TT::Identifier) | Some(TT::Var)) {
            self.advance(1);
            let token_text = self.prev_text();
            let quoted = self.pt() == Some(TT::Identifier);
            if parts.is_empty()
                && self
                    .t
                    .no_paren_function_parsers
                    .contains(upper(&token_text).as_str())
            {
                self.retreat(index);
                return Ok(None);
            }
            let has_dot = self.m(TT::Dot);
            let curr = self.ct();
            if !has_dot {
                if curr.is_some_and(|c| {
                    self.t.column_operators.contains(&c)
                        || matches!(
                            c,
                            TT::Colon | TT::JoinMarker | TT::LBrace | TT::LBracket | TT::LParen
                        )
                }) {
                    self.retreat(index);
                    return Ok(None);
                }
            } else if !matches!(curr, Some(TT::Identifier) | Some(TT::Var)) {
                self.retreat(index);
                return Ok(None);
            }
            parts.push(identifier(&token_text, quoted));
            if !has_dot {
                break;
            }
        }
        if parts.is_empty() {
            return Ok(None);
        }
        let n = parts.len();
        let mut it = parts.into_iter();
        let mut p = || it.next();
        let column = match n {
            1 => node("Column", vec![("this", oex(p()))]),
            2 => {
                let t = p();
                node("Column", vec![("this", oex(p())), ("table", oex(t))])
            }
            3 => {
                let d = p();
                let t = p();
                node(
                    "Column",
                    vec![("this", oex(p())), ("table", oex(t)), ("db", oex(d))],
                )
            }
            _ => {
                let c = p();
                let d = p();
                let t = p();
                let mut col = node(
                    "Column",
                    vec![
                        ("this", oex(p())),
                        ("table", oex(t)),
                        ("db", oex(d)),
                        ("catalog", oex(c)),
                    ],
                );
                for _ in 4..n {
                    col = binary("Dot", Some(col), p());
                }
                col
            }
        };
        Ok(Some(column))
    }

    fn parse_column_reference(&mut self) -> PResult<Option<Expr>> {
        let mut this = self.parse_field(false, None, false)?;
        if this.is_none() && self.is(TT::Values) && self.nt() != Some(TT::LParen) {
            this = self.parse_id_var(true, None)?;
        }
        if let Some(t) = &this {
            if t.is("Identifier") {
                let id = this.take();
                return Ok(Some(
                    self.expression(node("Column", vec![("this", oex(id))]))?,
                ));
            }
        }
        Ok(this)
    }

    fn parse_bracket(&mut self, this: Option<Expr>) -> PResult<Option<Expr>> {
        if self.is(TT::LBracket) || self.is(TT::LBrace) {
            return unsupported("brackets");
        }
        Ok(this)
    }

    fn parse_column_ops(&mut self, this: Option<Expr>) -> PResult<Option<Expr>> {
        let mut this = self.parse_bracket(this)?;
        while let Some(op) = self.ct() {
            if !self.t.column_operators.contains(&op) {
                break;
            }
            if op != TT::Dot {
                return unsupported(&format!("column operator {}", op.name()));
            }
            self.advance(1);
            let field = self.parse_field(true, None, true)?;
            if field
                .as_ref()
                .is_some_and(|f| has_flag(f, tables::CLASS_FUNC) || f.is("Window"))
                && this.is_some()
            {
                return unsupported("qualified function call");
            }
            let is_col = this
                .as_ref()
                .is_some_and(|t| t.is("Column") && t.arg("catalog").is_none());
            this = if is_col {
                let mut col = this.take().unwrap_or_else(|| Expr::new("Column"));
                let t = take_child(&mut col, "this");
                let d = take_child(&mut col, "table");
                let c = take_child(&mut col, "db");
                Some(self.expression(node(
                    "Column",
                    vec![
                        ("this", oex(field)),
                        ("table", oex(t)),
                        ("db", oex(d)),
                        ("catalog", oex(c)),
                    ],
                ))?)
            } else {
                Some(self.expression(binary("Dot", this, field))?)
            };
            this = self.parse_bracket(this)?;
        }
        Ok(this)
    }

    fn parse_paren(&mut self) -> PResult<Option<Expr>> {
        if !self.m(TT::LParen) {
            return Ok(None);
        }
        self.enter()?;
        let r = self.parse_paren_inner();
        self.leave();
        r
    }

    fn parse_paren_inner(&mut self) -> PResult<Option<Expr>> {
        let query = self.parse_select(false, false, true, true)?;
        let expressions = match query {
            Some(q) => vec![q],
            None => self.parse_expressions()?,
        };
        let n = expressions.len();
        let first = expressions.first().cloned();
        let this = match first {
            None if self.is(TT::RParen) => Some(self.expression(Expr::new("Tuple"))?),
            Some(t)
                if t.is("Select")
                    || has_flag(&t, tables::CLASS_QUERY)
                        && ["Union", "Except", "Intersect"].contains(&t.class.as_str()) =>
            {
                self.parse_subquery(Some(t), false)?
            }
            Some(t) if t.is("Subquery") || t.is("Values") => {
                let t = self.parse_set_operations(Some(t))?;
                let t = self.parse_query_modifiers(t)?;
                self.parse_subquery(t, false)?
            }
            first => {
                if n > 1 || self.pt() == Some(TT::Comma) {
                    Some(self.expression(node("Tuple", vec![("expressions", lst(expressions))]))?)
                } else {
                    Some(self.expression(node("Paren", vec![("this", oex(first))]))?)
                }
            }
        };
        self.match_r_paren()?;
        if let Some(t) = &this {
            if t.is("Paren")
                && t.child("this")
                    .is_some_and(|i| has_flag(i, tables::CLASS_AGG_FUNC))
            {
                return self.parse_window(this);
            }
        }
        Ok(this)
    }

    fn parse_primary(&mut self) -> PResult<Option<Expr>> {
        if self.in_set(&self.t.primary) {
            let tt = self.ct().unwrap_or(TT::Sentinel);
            self.advance(1);
            let primary = self.primary_parser(tt)?;
            if tt == TT::String {
                let mut expressions = vec![primary];
                while self.m(TT::String) {
                    expressions.push(node(
                        "Literal",
                        vec![("this", st(&self.prev_text())), ("is_string", bl(true))],
                    ));
                }
                if expressions.len() > 1 {
                    return Ok(Some(self.expression(node(
                        "Concat",
                        vec![("expressions", lst(expressions)), ("coalesce", bl(false))],
                    ))?));
                }
                return Ok(expressions.pop());
            }
            return Ok(Some(primary));
        }
        if self.m_pair(TT::Dot, TT::Number, true) {
            let text = format!("0.{}", self.prev_text());
            return Ok(Some(node(
                "Literal",
                vec![("this", st(&text)), ("is_string", bl(false))],
            )));
        }
        self.parse_paren()
    }

    fn parse_field(
        &mut self,
        any_token: bool,
        tokens: Option<&HashSet<TT>>,
        anonymous_func: bool,
    ) -> PResult<Option<Expr>> {
        let opts = FuncOpts {
            anonymous: anonymous_func,
            optional_parens: true,
            any_token,
        };
        let field = if anonymous_func {
            match self.parse_function(opts)? {
                Some(f) => Some(f),
                None => self.parse_primary()?,
            }
        } else {
            match self.parse_primary()? {
                Some(f) => Some(f),
                None => self.parse_function(opts)?,
            }
        };
        match field {
            Some(f) => Ok(Some(f)),
            None => self.parse_id_var(any_token, tokens),
        }
    }

    fn parse_function(&mut self, opts: FuncOpts) -> PResult<Option<Expr>> {
        if self.is(TT::LBrace) && self.next().is_some_and(|n| upper(&n.text) == "FN") {
            return unsupported("{fn ...}");
        }
        self.parse_function_call(opts)
    }

    fn parse_function_call(&mut self, opts: FuncOpts) -> PResult<Option<Expr>> {
        let Some(token) = self.curr().cloned() else {
            return Ok(None);
        };
        let token_type = token.token_type;
        let up = upper(&token.text);
        let after_dot = self.pt() == Some(TT::Dot);
        let like_before = matches!(self.pt(), Some(TT::Like) | Some(TT::Ilike));

        let no_paren_parser = self.t.no_paren_function_parsers.contains(up.as_str());
        if opts.optional_parens
            && no_paren_parser
            && !matches!(token_type, TT::Identifier | TT::String)
            && !after_dot
        {
            self.advance(1);
            let r = match up.as_str() {
                "CASE" => self.parse_case()?,
                "IF" => self.parse_if()?,
                other => return unsupported(other),
            };
            return self.parse_window(r);
        }

        if self.nt() != Some(TT::LParen) {
            if opts.optional_parens && !after_dot {
                if let Some(class) = self.t.no_paren_functions.get(&token_type) {
                    self.advance(1);
                    return Ok(Some(self.expression(Expr::new(class))?));
                }
            }
            return Ok(None);
        }

        if opts.any_token {
            if self.t.reserved.contains(&token_type) {
                return Ok(None);
            }
        } else if !self.t.func.contains(&token_type) {
            return Ok(None);
        }

        self.advance(2);

        let has_parser = self.t.function_parsers.contains(up.as_str());
        let result = if has_parser && !opts.anonymous {
            match up.as_str() {
                "CAST" => self.parse_cast(true, None)?,
                "TRY_CAST" => self.parse_cast(false, Some(true))?,
                "SUBSTRING" => self.parse_substring()?,
                "TRIM" => self.parse_trim()?,
                "POSITION" => self.parse_position()?,
                other => return unsupported(&format!("function {other}")),
            }
        } else {
            let predicate = match token_type {
                TT::Any | TT::Some => Some("Any"),
                TT::All => Some("All"),
                TT::Exists => Some("Exists"),
                _ => None,
            };
            if let Some(class) = predicate {
                let mut expr = None;
                if matches!(
                    self.ct(),
                    Some(TT::From) | Some(TT::Select) | Some(TT::With)
                ) {
                    expr = self.parse_select(false, false, true, true)?;
                    self.match_r_paren()?;
                } else if like_before {
                    return unsupported("LIKE ANY/ALL");
                }
                if let Some(e) = expr {
                    return Ok(Some(self.expression(node(class, vec![("this", ex(e))]))?));
                }
            }

            let function = self.t.functions.get(up.as_str()).copied();
            let known = function.is_some() && !opts.anonymous;
            let alias = !known || up == "STRUCT";
            let args = self.parse_csv(|p| p.parse_lambda(alias))?;
            if alias && known {
                return unsupported("function with aliased arguments");
            }
            if known {
                let nargs = args.len();
                let func = self.build_function(&up, function.unwrap_or(""), args)?;
                self.validate(func, Some(nargs))?
            } else {
                let this = if token_type == TT::Identifier {
                    ex(identifier(&token.text, true))
                } else {
                    st(&token.text)
                };
                self.expression(node(
                    "Anonymous",
                    vec![("this", this), ("expressions", lst(args))],
                ))?
            }
        };

        if has_parser {
            self.m(TT::RParen);
        } else {
            self.match_r_paren()?;
        }
        self.parse_window(Some(result))
    }

    /// The `FUNCTIONS` builders: `from_arg_list` of the class the table names, or one of the
    /// custom builders ported here.
    fn build_function(&mut self, name: &str, class: &str, mut args: Vec<Expr>) -> PResult<Expr> {
        let seq = |args: &Vec<Expr>, i: usize| args.get(i).cloned();
        if !class.is_empty() {
            return from_arg_list(class, args);
        }
        let sqlite = self.dialect == Dialect::Sqlite;
        let e = match name {
            "COUNT" => {
                let this = seq(&args, 0);
                let rest = if args.is_empty() {
                    vec![]
                } else {
                    args[1..].to_vec()
                };
                node(
                    "Count",
                    vec![
                        ("this", oex(this)),
                        ("expressions", lst(rest)),
                        ("big_int", bl(true)),
                    ],
                )
            }
            "COALESCE" | "IFNULL" | "NVL" => {
                let this = seq(&args, 0);
                let rest = if args.is_empty() {
                    vec![]
                } else {
                    args[1..].to_vec()
                };
                node(
                    "Coalesce",
                    vec![("this", oex(this)), ("expressions", lst(rest))],
                )
            }
            "LOWER" | "UPPER" => {
                let arg = seq(&args, 0);
                if arg.as_ref().is_some_and(|a| a.is("Hex")) {
                    return unsupported("LOWER/UPPER of HEX");
                }
                node(
                    if name == "LOWER" { "Lower" } else { "Upper" },
                    vec![("this", oex(arg))],
                )
            }
            "CONCAT" => node(
                "Concat",
                vec![
                    ("expressions", lst(args)),
                    ("safe", bl(true)),
                    ("coalesce", bl(false)),
                ],
            ),
            "GLOB" => binary("Glob", seq(&args, 1), seq(&args, 0)),
            "LIKE" => {
                let like = binary("Like", seq(&args, 1), seq(&args, 0));
                if args.len() > 2 {
                    binary("Escape", Some(like), seq(&args, 2))
                } else {
                    like
                }
            }
            "LOG" => {
                let this = seq(&args, 0);
                let expression = seq(&args, 1);
                if expression.is_some() {
                    // LOG_BASE_FIRST in both dialects.
                    binary("Log", this, expression)
                } else {
                    node("Log", vec![("this", oex(this))])
                }
            }
            "LTRIM" | "RTRIM" => node(
                "Trim",
                vec![
                    ("this", oex(seq(&args, 0))),
                    ("expression", oex(seq(&args, 1))),
                    (
                        "position",
                        st(if name == "LTRIM" {
                            "LEADING"
                        } else {
                            "TRAILING"
                        }),
                    ),
                ],
            ),
            "GREATEST" | "LEAST" => {
                let this = seq(&args, 0);
                let rest = if args.is_empty() {
                    vec![]
                } else {
                    args[1..].to_vec()
                };
                node(
                    if name == "GREATEST" {
                        "Greatest"
                    } else {
                        "Least"
                    },
                    vec![
                        ("this", oex(this)),
                        ("expressions", lst(rest)),
                        ("ignore_nulls", bl(true)),
                    ],
                )
            }
            "CHARINDEX" | "LOCATE" => node(
                "StrPosition",
                vec![
                    ("this", oex(seq(&args, 1))),
                    ("substr", oex(seq(&args, 0))),
                    ("position", oex(seq(&args, 2))),
                ],
            ),
            "MOD" => {
                let wrap = |e: Option<Expr>| -> Option<Expr> {
                    e.map(|e| {
                        if has_flag(&e, tables::CLASS_BINARY) {
                            node("Paren", vec![("this", ex(e))])
                        } else {
                            e
                        }
                    })
                };
                binary("Mod", wrap(seq(&args, 0)), wrap(seq(&args, 1)))
            }
            "STRFTIME" if sqlite => {
                if args.len() == 1 {
                    args.push(Expr::new("CurrentTimestamp"));
                }
                if args.len() == 2 {
                    let ts = node("TsOrDsToTimestamp", vec![("this", oex(seq(&args, 1)))]);
                    node(
                        "TimeToStr",
                        vec![("this", ex(ts)), ("format", oex(seq(&args, 0)))],
                    )
                } else {
                    node(
                        "Anonymous",
                        vec![("this", st("STRFTIME")), ("expressions", lst(args))],
                    )
                }
            }
            "DATETIME" | "TIME" if sqlite => node(
                "Anonymous",
                vec![("this", st(name)), ("expressions", lst(args))],
            ),
            other => return unsupported(&format!("builder of {other}")),
        };
        Ok(e)
    }

    fn parse_lambda(&mut self, alias: bool) -> PResult<Option<Expr>> {
        let next = self.nt();
        if matches!(next, Some(TT::Comma) | Some(TT::RParen)) {
            if let Some(atom) = self.parse_atom()? {
                return Ok(Some(atom));
            }
        }
        let index = self.index;
        if self.m(TT::LParen) {
            let _ = self.parse_csv(|p| p.parse_id_var(true, None))?;
            if !self.m(TT::RParen) {
                self.retreat(index);
            } else if matches!(self.ct(), Some(TT::Arrow) | Some(TT::Farrow)) {
                return unsupported("lambda");
            } else {
                self.retreat(index);
            }
        } else if matches!(next, Some(TT::Arrow) | Some(TT::Farrow)) {
            let _ = self.parse_id_var(true, None)?;
            if matches!(self.ct(), Some(TT::Arrow) | Some(TT::Farrow)) {
                return unsupported("lambda");
            }
            self.retreat(index);
        }
        let this = if self.m(TT::Distinct) {
            let exprs = self.parse_csv(|p| p.parse_disjunction())?;
            Some(self.expression(node("Distinct", vec![("expressions", lst(exprs))]))?)
        } else {
            self.m(TT::All);
            self.parse_select_or_expression(alias)?
        };
        self.check_respect_or_ignore_nulls()?;
        if self.is(TT::Having) {
            return unsupported("HAVING MAX/MIN");
        }
        let this = self.parse_order(this)?;
        self.check_respect_or_ignore_nulls()?;
        self.parse_limit(this)
    }

    fn check_respect_or_ignore_nulls(&mut self) -> PResult<()> {
        if self.is(TT::Var)
            && (self.peek_text_seq(&["IGNORE", "NULLS"])
                || self.peek_text_seq(&["RESPECT", "NULLS"]))
        {
            return unsupported("IGNORE/RESPECT NULLS");
        }
        Ok(())
    }

    fn parse_window(&mut self, this: Option<Expr>) -> PResult<Option<Expr>> {
        if self.peek_text_seq(&["WITHIN", "GROUP"]) {
            return unsupported("WITHIN GROUP");
        }
        if self.m_pair(TT::Filter, TT::LParen, false) {
            return unsupported("FILTER");
        }
        self.check_respect_or_ignore_nulls()?;
        if self.is(TT::Over) {
            return unsupported("window function");
        }
        Ok(this)
    }

    fn parse_case(&mut self) -> PResult<Option<Expr>> {
        if self.is(TT::Dot) {
            self.retreat(self.index - 1);
            return Ok(None);
        }
        let expression = self.parse_disjunction()?;
        let mut ifs = Vec::new();
        while self.m(TT::When) {
            let this = self.parse_disjunction()?;
            self.m(TT::Then);
            let then = self.parse_disjunction()?;
            ifs.push(self.expression(node("If", vec![("this", oex(this)), ("true", oex(then))]))?);
        }
        let mut default = None;
        if self.m(TT::Else) {
            default = self.parse_disjunction()?;
        }
        if !self.m(TT::End) {
            return Err(self.error("Expected END after CASE"));
        }
        Ok(Some(self.expression(node(
            "Case",
            vec![
                ("this", oex(expression)),
                ("ifs", lst(ifs)),
                ("default", oex(default)),
            ],
        ))?))
    }

    fn parse_if(&mut self) -> PResult<Option<Expr>> {
        if self.m(TT::LParen) {
            let args = self.parse_csv(|p| {
                let a = p.parse_assignment()?;
                p.parse_alias(a, true)
            })?;
            let n = args.len();
            let this = self.validate(from_arg_list("If", args)?, Some(n))?;
            self.match_r_paren()?;
            return Ok(Some(this));
        }
        let index = self.index - 1;
        if index == 0 {
            // NO_PAREN_IF_COMMANDS: a statement starting with IF is parsed as a command.
            return unsupported("IF command");
        }
        let condition = self.parse_disjunction()?;
        let Some(condition) = condition else {
            self.retreat(index);
            return Ok(None);
        };
        self.m(TT::Then);
        let t = self.parse_disjunction()?;
        let f = if self.m(TT::Else) {
            self.parse_disjunction()?
        } else {
            None
        };
        self.m(TT::End);
        Ok(Some(self.expression(node(
            "If",
            vec![("this", ex(condition)), ("true", oex(t)), ("false", oex(f))],
        ))?))
    }

    fn parse_cast(&mut self, strict: bool, safe: Option<bool>) -> PResult<Expr> {
        let this = self.parse_assignment()?;
        if !self.m(TT::Alias) {
            if self.is(TT::Comma) {
                return unsupported("CAST(x, fmt)");
            }
            return Err(self.error("Expected AS after CAST"));
        }
        let to = self.parse_types(false, true, true)?;
        if self.is(TT::Default) {
            return unsupported("CAST DEFAULT");
        }
        if self.is(TT::Format) || self.is(TT::Comma) {
            return unsupported("CAST FORMAT");
        }
        let Some(to) = to else {
            return Err(self.error("Expected TYPE after CAST"));
        };
        if to.str_arg("this") == Some("CHAR") && self.is(TT::CharacterSet) {
            return unsupported("CHARACTER SET");
        }
        if self.curr_text_is(&["RENAME", "ADD"])
            && self
                .next()
                .is_some_and(|n| n.token_type != TT::String && upper(&n.text) == "FIELDS")
        {
            return unsupported("CAST action");
        }
        let e = if strict {
            node("Cast", vec![("this", oex(this)), ("to", ex(to))])
        } else {
            // TRY_CAST_REQUIRES_STRING is None in both dialects.
            node(
                "TryCast",
                vec![
                    ("this", oex(this)),
                    ("to", ex(to)),
                    ("safe", safe.and_then(bl)),
                ],
            )
        };
        self.expression(e)
    }

    fn parse_substring(&mut self) -> PResult<Expr> {
        let mut args = self.parse_csv(|p| p.parse_bitwise())?;
        let mut start = None;
        let mut length = None;
        while self.curr().is_some() {
            if self.m(TT::From) {
                start = self.parse_bitwise()?;
            } else if self.m(TT::For) {
                if start.is_none() {
                    start = Some(node(
                        "Literal",
                        vec![("this", st("1")), ("is_string", bl(false))],
                    ));
                }
                length = self.parse_bitwise()?;
            } else {
                break;
            }
        }
        if let Some(s) = start {
            args.push(s);
        }
        if let Some(l) = length {
            args.push(l);
        }
        let n = args.len();
        let e = from_arg_list("Substring", args)?;
        self.validate(e, Some(n))
    }

    fn parse_trim(&mut self) -> PResult<Expr> {
        let mut position = None;
        if self.m_texts(&["LEADING", "TRAILING", "BOTH"]) {
            position = Some(upper(&self.prev_text()));
        }
        let mut this = self.parse_bitwise()?;
        let mut expression = None;
        if self.m_any(&[TT::From, TT::Comma]) {
            let invert = self.pt() == Some(TT::From);
            expression = self.parse_bitwise()?;
            if invert {
                std::mem::swap(&mut this, &mut expression);
            }
        }
        if self.is(TT::Collate) {
            return unsupported("TRIM COLLATE");
        }
        self.expression(node(
            "Trim",
            vec![
                ("this", oex(this)),
                ("position", position.as_deref().and_then(st)),
                ("expression", oex(expression)),
            ],
        ))
    }

    fn parse_position(&mut self) -> PResult<Expr> {
        let args = self.parse_csv(|p| p.parse_bitwise())?;
        if self.m(TT::In) {
            let this = self.parse_bitwise()?;
            return self.expression(node(
                "StrPosition",
                vec![("this", oex(this)), ("substr", oex(args.first().cloned()))],
            ));
        }
        self.expression(node(
            "StrPosition",
            vec![
                ("this", oex(args.get(1).cloned())),
                ("substr", oex(args.first().cloned())),
                ("position", oex(args.get(2).cloned())),
            ],
        ))
    }

    fn parse_select_or_expression(&mut self, alias: bool) -> PResult<Option<Expr>> {
        let a = self.parse_assignment()?;
        let a = if alias { self.parse_alias(a, true)? } else { a };
        match self.parse_set_operations(a)? {
            Some(e) => Ok(Some(e)),
            None => self.parse_select(false, false, true, true),
        }
    }

    fn parse_alias(&mut self, this: Option<Expr>, explicit: bool) -> PResult<Option<Expr>> {
        if self.can_parse_limit_or_offset()? {
            return Ok(this);
        }
        if self.can_parse_named_window() {
            return Ok(this);
        }
        let any_token = self.m(TT::Alias);
        if explicit && !any_token {
            return Ok(this);
        }
        if self.is(TT::LParen) {
            return unsupported("alias list");
        }
        let t: &'static Tables = self.t;
        let mut alias = self.parse_id_var(any_token, Some(&t.alias))?;
        if alias.is_none() && self.dialect == Dialect::Sqlite {
            // STRING_ALIASES
            alias = self.parse_string_as_identifier();
        }
        if let Some(alias) = alias {
            return Ok(Some(self.expression(node(
                "Alias",
                vec![("this", oex(this)), ("alias", ex(alias))],
            ))?));
        }
        Ok(this)
    }

    fn can_parse_limit_or_offset(&mut self) -> PResult<bool> {
        if !(self.is(TT::Limit) || self.is(TT::Offset)) {
            return Ok(false);
        }
        let index = self.index;
        let mut result = self.try_parse(|p| p.parse_limit(None))?.is_some();
        self.retreat(index);
        if !result {
            result = self.try_parse(|p| p.parse_offset(None))?.is_some();
            self.retreat(index);
        }
        if self.nt() == Some(TT::MatchCondition) {
            result = false;
        }
        Ok(result)
    }

    fn can_parse_named_window(&self) -> bool {
        if !self.is(TT::Window) {
            return false;
        }
        let i = self.index as usize;
        let name = self.tokens.get(i + 1);
        if !name.is_some_and(|t| self.t.id_var.contains(&t.token_type)) {
            return false;
        }
        if !self
            .tokens
            .get(i + 2)
            .is_some_and(|t| t.token_type == TT::Alias)
        {
            return false;
        }
        self.tokens
            .get(i + 3)
            .is_some_and(|t| t.token_type == TT::LParen)
    }

    /// `_try_parse`: a syntax error inside becomes `None` and the position is restored;
    /// `Unsupported` passes through.
    fn try_parse<F>(&mut self, f: F) -> PResult<Option<Expr>>
    where
        F: FnOnce(&mut Parser) -> PResult<Option<Expr>>,
    {
        let index = self.index;
        let depth = self.depth;
        match f(self) {
            Ok(Some(e)) => Ok(Some(e)),
            Ok(None) => {
                self.retreat(index);
                Ok(None)
            }
            Err(ParseError::Syntax(_)) => {
                self.depth = depth;
                self.retreat(index);
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    fn parse_id_var(
        &mut self,
        any_token: bool,
        tokens: Option<&HashSet<TT>>,
    ) -> PResult<Option<Expr>> {
        if let Some(e) = self.parse_identifier()? {
            return Ok(Some(e));
        }
        let t: &'static Tables = self.t;
        let tokens = tokens.unwrap_or(&t.id_var);
        if (any_token && self.advance_any(false)) || self.m_set(tokens) {
            let quoted = self.pt() == Some(TT::String);
            return Ok(Some(identifier(&self.prev_text(), quoted)));
        }
        Ok(None)
    }

    fn parse_identifier(&mut self) -> PResult<Option<Expr>> {
        if self.m(TT::Identifier) {
            return Ok(Some(identifier(&self.prev_text(), true)));
        }
        self.parse_placeholder()
    }

    fn parse_string_as_identifier(&mut self) -> Option<Expr> {
        if !self.m(TT::String) {
            return None;
        }
        Some(identifier(&self.prev_text(), true))
    }

    fn parse_string(&mut self) -> PResult<Option<Expr>> {
        match self.ct() {
            Some(TT::String) => {
                self.advance(1);
                Ok(Some(node(
                    "Literal",
                    vec![("this", st(&self.prev_text())), ("is_string", bl(true))],
                )))
            }
            Some(TT::HeredocString | TT::NationalString | TT::RawString | TT::UnicodeString) => {
                unsupported("special string")
            }
            _ => self.parse_placeholder(),
        }
    }

    fn parse_null(&mut self) -> PResult<Option<Expr>> {
        if self.m_any(&[TT::Null, TT::Unknown]) {
            return Ok(Some(Expr::new("Null")));
        }
        self.parse_placeholder()
    }

    fn parse_placeholder(&mut self) -> PResult<Option<Expr>> {
        match self.ct() {
            Some(TT::Placeholder) => {
                self.advance(1);
                Ok(Some(self.expression(Expr::new("Placeholder"))?))
            }
            Some(TT::Parameter) => unsupported("parameter"),
            Some(TT::Colon) => {
                if self
                    .nt()
                    .is_some_and(|n| self.t.colon_placeholder.contains(&n))
                {
                    return unsupported("named placeholder");
                }
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    fn parse_csv<F>(&mut self, mut f: F) -> PResult<Vec<Expr>>
    where
        F: FnMut(&mut Parser) -> PResult<Option<Expr>>,
    {
        let mut items = Vec::new();
        if let Some(e) = f(self)? {
            items.push(e);
        }
        while self.m(TT::Comma) {
            if let Some(e) = f(self)? {
                items.push(e);
            }
        }
        Ok(items)
    }

    fn parse_expressions(&mut self) -> PResult<Vec<Expr>> {
        self.parse_csv(|p| p.parse_expression())
    }

    // ---- queries

    fn parse_select(
        &mut self,
        nested: bool,
        table: bool,
        parse_subquery_alias: bool,
        parse_set_operation: bool,
    ) -> PResult<Option<Expr>> {
        self.enter()?;
        let r = self.parse_select_query(nested, table, parse_subquery_alias, parse_set_operation);
        self.leave();
        let query = r?;
        if self.is(TT::PipeGt) {
            return unsupported("pipe syntax");
        }
        Ok(query)
    }

    fn parse_select_query(
        &mut self,
        nested: bool,
        table: bool,
        parse_subquery_alias: bool,
        parse_set_operation: bool,
    ) -> PResult<Option<Expr>> {
        if let Some(cte) = self.parse_with()? {
            let this = self.parse_statement()?;
            let Some(mut this) = this else {
                return Err(self.error("Failed to parse any statement following CTE"));
            };
            while this.is("Subquery") && this.args.iter().all(|(k, _)| k == "this") {
                match take_child(&mut this, "this") {
                    Some(inner) => this = inner,
                    None => break,
                }
            }
            let supports_with =
                class_info(&this.class).is_some_and(|(_, a)| a.iter().any(|(k, _)| *k == "with_"));
            if !supports_with {
                return Err(self.error("does not support CTE"));
            }
            this.set("with_", Arg::Expr(Box::new(cte)));
            return Ok(Some(this));
        }

        if self.is(TT::From) {
            return unsupported("FROM-first query");
        }

        let this = if self.m(TT::Select) {
            if self.is(TT::Hint) {
                return unsupported("hint");
            }
            let (all_, matched_distinct) = if self.next().is_some() && self.nt() != Some(TT::Dot) {
                let a = self.m(TT::All);
                let d = self.m(TT::Distinct);
                (a, d)
            } else {
                (false, false)
            };
            let mut kind = None;
            if self.m(TT::Alias) && self.m_texts(&["STRUCT", "VALUE"]) {
                kind = Some(upper(&self.prev_text()));
            }
            let mut distinct = None;
            if matched_distinct {
                if self.is(TT::On) {
                    return unsupported("DISTINCT ON");
                }
                distinct = Some(self.expression(Expr::new("Distinct"))?);
            }
            if self.is(TT::Top) {
                return unsupported("TOP");
            }
            if all_ && distinct.is_some() {
                return Err(self.error("Cannot specify both ALL and DISTINCT after SELECT"));
            }
            let projections = self.parse_expressions()?;
            let mut this = self.expression(node(
                "Select",
                vec![
                    ("kind", kind.as_deref().and_then(st)),
                    ("distinct", oex(distinct)),
                    ("expressions", lst(projections)),
                ],
            ))?;
            if self.is(TT::Into) {
                return unsupported("SELECT INTO");
            }
            if let Some(from) = self.parse_from(false)? {
                this.set("from_", Arg::Expr(Box::new(from)));
            }
            self.parse_query_modifiers(Some(this))?
        } else if (table || nested) && self.m(TT::LParen) {
            let this = self.parse_wrapped_select(table)?;
            self.match_r_paren()?;
            return self.parse_subquery(this, parse_subquery_alias);
        } else if self.is(TT::Values) {
            return unsupported("VALUES");
        } else if self.is(TT::Summarize) || self.is(TT::Describe) {
            return unsupported("SUMMARIZE/DESCRIBE");
        } else {
            None
        };
        if parse_set_operation {
            self.parse_set_operations(this)
        } else {
            Ok(this)
        }
    }

    fn parse_wrapped_select(&mut self, table: bool) -> PResult<Option<Expr>> {
        if matches!(
            self.ct(),
            Some(TT::Pivot) | Some(TT::Unpivot) | Some(TT::From)
        ) {
            return unsupported("PIVOT/FROM in parentheses");
        }
        let this = if table {
            self.parse_table(false, true)?
        } else {
            self.parse_select(true, false, true, false)?
        };
        let this = self.parse_set_operations(this)?;
        self.parse_query_modifiers(this)
    }

    fn parse_with(&mut self) -> PResult<Option<Expr>> {
        if !self.m(TT::With) {
            return Ok(None);
        }
        let recursive = self.m(TT::Recursive);
        let mut expressions = Vec::new();
        loop {
            if let Some(cte) = self.parse_cte()? {
                expressions.push(cte);
            }
            if !self.m(TT::Comma) && !self.m(TT::With) {
                break;
            }
            self.m(TT::With);
        }
        if self.peek_text_seq(&["SEARCH"]) {
            return unsupported("recursive CTE SEARCH");
        }
        Ok(Some(self.expression(node(
            "With",
            vec![
                ("expressions", lst(expressions)),
                ("recursive", if recursive { bl(true) } else { None }),
            ],
        ))?))
    }

    fn parse_cte(&mut self) -> PResult<Option<Expr>> {
        let t: &'static Tables = self.t;
        let alias = self.parse_table_alias(Some(&t.id_var))?;
        if !alias.as_ref().is_some_and(|a| a.arg("this").is_some()) {
            return Err(self.error("Expected CTE to have alias"));
        }
        if self.peek_text_seq(&["USING", "KEY"]) {
            return unsupported("USING KEY");
        }
        self.m(TT::Alias);
        if self.peek_text_seq(&["NOT", "MATERIALIZED"]) || self.peek_text_seq(&["MATERIALIZED"]) {
            return unsupported("MATERIALIZED");
        }
        // `_parse_wrapped(self._parse_statement)`
        let wrapped = self.m(TT::LParen);
        if !wrapped {
            return Err(self.error("Expecting ("));
        }
        let this = self.parse_statement()?;
        self.match_r_paren()?;
        if this.as_ref().is_some_and(|t| t.is("Values")) {
            return unsupported("CTE of VALUES");
        }
        Ok(Some(self.expression(node(
            "CTE",
            vec![("this", oex(this)), ("alias", oex(alias))],
        ))?))
    }

    fn parse_table_alias(&mut self, alias_tokens: Option<&HashSet<TT>>) -> PResult<Option<Expr>> {
        if self.can_parse_limit_or_offset()? {
            return Ok(None);
        }
        let any_token = self.m(TT::Alias);
        let t: &'static Tables = self.t;
        let tokens = alias_tokens.unwrap_or(&t.table_alias);
        let mut alias = self.parse_id_var(any_token, Some(tokens))?;
        if alias.is_none() {
            alias = self.parse_string_as_identifier();
        }
        if self.is(TT::LParen) {
            return unsupported("table alias columns");
        }
        let Some(alias) = alias else { return Ok(None) };
        Ok(Some(self.expression(node(
            "TableAlias",
            vec![("this", ex(alias))],
        ))?))
    }

    fn parse_subquery(&mut self, this: Option<Expr>, parse_alias: bool) -> PResult<Option<Expr>> {
        let Some(this) = this else { return Ok(None) };
        if matches!(self.ct(), Some(TT::Pivot) | Some(TT::Unpivot)) {
            return unsupported("PIVOT");
        }
        let alias = if parse_alias {
            self.parse_table_alias(None)?
        } else {
            None
        };
        if self.is(TT::TableSample) {
            return unsupported("TABLESAMPLE");
        }
        Ok(Some(self.expression(node(
            "Subquery",
            vec![("this", ex(this)), ("alias", oex(alias))],
        ))?))
    }

    fn is_modifiable(e: &Expr) -> bool {
        has_flag(e, tables::CLASS_QUERY)
            || ["Table", "TableFromRows", "Values"].contains(&e.class.as_str())
    }

    fn parse_query_modifiers(&mut self, this: Option<Expr>) -> PResult<Option<Expr>> {
        let Some(mut this) = this else {
            return Ok(None);
        };
        if !Self::is_modifiable(&this) {
            return Ok(Some(this));
        }
        while let Some(join) = self.parse_join()? {
            append(&mut this, "joins", join);
        }
        if self.m_pair(TT::Cross, TT::Apply, false)
            || self.m_pair(TT::Outer, TT::Apply, false)
            || self.is(TT::Lateral)
        {
            return unsupported("LATERAL/APPLY");
        }
        loop {
            let Some(tt) = self.ct() else { break };
            if !self.t.query_modifier.contains(&tt) {
                break;
            }
            let modifier_text = self.curr().map(|t| upper(&t.text)).unwrap_or_default();
            let (key, expression) = match tt {
                TT::Where => ("where", self.parse_where()?),
                TT::GroupBy => ("group", self.parse_group()?),
                TT::Having => ("having", self.parse_having()?),
                TT::OrderBy => ("order", self.parse_order(None)?),
                TT::Limit => ("limit", self.parse_limit(None)?),
                TT::Offset => ("offset", self.parse_offset(None)?),
                TT::For => {
                    if self.peek_text_seq(&["FOR", "UPDATE"])
                        || self.peek_text_seq(&["FOR", "SHARE"])
                        || self.peek_text_seq(&["FOR", "KEY", "SHARE"])
                        || self.peek_text_seq(&["FOR", "NO", "KEY", "UPDATE"])
                    {
                        return unsupported("locks");
                    }
                    ("locks", None)
                }
                TT::Lock => {
                    if self.peek_text_seq(&["LOCK", "IN", "SHARE", "MODE"]) {
                        return unsupported("locks");
                    }
                    ("locks", None)
                }
                TT::Using => {
                    if self.peek_text_seq(&["USING", "SAMPLE"]) {
                        return unsupported("USING SAMPLE");
                    }
                    ("sample", None)
                }
                other => return unsupported(&format!("query modifier {}", other.name())),
            };
            let Some(mut expression) = expression else {
                break;
            };
            if this.arg(key).is_some() {
                return Err(self.error(&format!("Found multiple '{modifier_text}' clauses")));
            }
            if key == "limit" {
                let offset = take_child(&mut expression, "offset");
                let limit_by = match expression.arg("expressions") {
                    Some(Arg::List(l)) => Some(l.clone()),
                    _ => None,
                };
                this.set(key, Arg::Expr(Box::new(expression.clone())));
                if let Some(offset) = offset {
                    let mut lim = expression;
                    lim.unset("expressions");
                    this.set("limit", Arg::Expr(Box::new(lim)));
                    let mut off = node("Offset", vec![("expression", ex(offset))]);
                    if let Some(l) = limit_by {
                        off.set("expressions", Arg::List(l));
                    }
                    this.set("offset", Arg::Expr(Box::new(off)));
                }
                continue;
            }
            this.set(key, Arg::Expr(Box::new(expression)));
        }
        Ok(Some(this))
    }

    fn parse_from(&mut self, skip_from_token: bool) -> PResult<Option<Expr>> {
        if !skip_from_token && !self.m(TT::From) {
            return Ok(None);
        }
        let this = self.parse_table(false, false)?;
        Ok(Some(
            self.expression(node("From", vec![("this", oex(this))]))?,
        ))
    }

    fn parse_where(&mut self) -> PResult<Option<Expr>> {
        if !self.m(TT::Where) {
            return Ok(None);
        }
        let this = self.parse_disjunction()?;
        Ok(Some(
            self.expression(node("Where", vec![("this", oex(this))]))?,
        ))
    }

    fn parse_having(&mut self) -> PResult<Option<Expr>> {
        if !self.m(TT::Having) {
            return Ok(None);
        }
        let this = self.parse_disjunction()?;
        Ok(Some(
            self.expression(node("Having", vec![("this", oex(this))]))?,
        ))
    }

    fn parse_group(&mut self) -> PResult<Option<Expr>> {
        if !self.m(TT::GroupBy) {
            return Ok(None);
        }
        let mut all = None;
        if self.m(TT::All) {
            all = Some(true);
        } else if self.m(TT::Distinct) {
            all = Some(false);
        }
        if self.in_set(&self.t.query_modifier) {
            return Ok(Some(
                self.expression(node("Group", vec![("all", all.and_then(bl))]))?,
            ));
        }
        let mut expressions = Vec::new();
        loop {
            let index = self.index;
            let items = self.parse_csv(|p| {
                if matches!(p.ct(), Some(TT::Cube) | Some(TT::Rollup)) {
                    Ok(None)
                } else {
                    p.parse_disjunction()
                }
            })?;
            expressions.extend(items);
            let before_with_index = self.index;
            self.m(TT::With);
            if matches!(
                self.ct(),
                Some(TT::Cube) | Some(TT::Rollup) | Some(TT::GroupingSets)
            ) || self.peek_text_seq(&["TOTALS"])
            {
                return unsupported("CUBE/ROLLUP/GROUPING SETS/TOTALS");
            }
            if before_with_index <= self.index && self.index <= before_with_index + 1 {
                self.retreat(before_with_index);
                break;
            }
            if index == self.index {
                break;
            }
        }
        Ok(Some(self.expression(node(
            "Group",
            vec![("all", all.and_then(bl)), ("expressions", lst(expressions))],
        ))?))
    }

    fn parse_order(&mut self, this: Option<Expr>) -> PResult<Option<Expr>> {
        if !self.m(TT::OrderBy) {
            if self.is(TT::OrderSiblingsBy) {
                return unsupported("ORDER SIBLINGS BY");
            }
            return Ok(this);
        }
        let expressions = self.parse_csv(|p| p.parse_ordered())?;
        Ok(Some(self.expression(node(
            "Order",
            vec![("this", oex(this)), ("expressions", lst(expressions))],
        ))?))
    }

    fn parse_ordered(&mut self) -> PResult<Option<Expr>> {
        let Some(this) = self.parse_disjunction()? else {
            return Ok(None);
        };
        let asc = self.m(TT::Asc);
        let desc = if self.m(TT::Desc) {
            Some(true)
        } else if asc {
            Some(false)
        } else {
            None
        };
        let is_nulls_first = self.m_text_seq(&["NULLS", "FIRST"]);
        let is_nulls_last = self.m_text_seq(&["NULLS", "LAST"]);
        let mut nulls_first = is_nulls_first;
        // NULL_ORDERING is "nulls_are_small" in both dialects.
        if !(is_nulls_first || is_nulls_last) && desc != Some(true) {
            nulls_first = true;
        }
        if self.peek_text_seq(&["WITH", "FILL"]) {
            return unsupported("WITH FILL");
        }
        Ok(Some(self.expression(node(
            "Ordered",
            vec![
                ("this", ex(this)),
                ("desc", desc.and_then(bl)),
                ("nulls_first", bl(nulls_first)),
            ],
        ))?))
    }

    fn parse_limit(&mut self, this: Option<Expr>) -> PResult<Option<Expr>> {
        if self.m(TT::Limit) {
            let index = self.index;
            let mut expression = self.try_parse(|p| p.parse_term())?;
            if expression.as_ref().is_some_and(|e| e.is("Mod")) {
                self.retreat(index);
                expression = self.parse_factor()?;
            } else if expression.is_none() {
                expression = self.parse_factor()?;
            }
            self.parse_limit_options()?;
            let mut offset = None;
            if self.m(TT::Comma) {
                offset = expression.take();
                expression = self.parse_term()?;
            }
            let limit_by = self.parse_limit_by()?;
            return Ok(Some(self.expression(node(
                "Limit",
                vec![
                    ("this", oex(this)),
                    ("expression", oex(expression)),
                    ("offset", oex(offset)),
                    ("expressions", limit_by.map(Arg::List)),
                ],
            ))?));
        }
        if self.is(TT::Fetch) {
            return unsupported("FETCH");
        }
        Ok(this)
    }

    fn parse_limit_options(&mut self) -> PResult<()> {
        if matches!(
            self.ct(),
            Some(TT::Percent) | Some(TT::Mod) | Some(TT::Row) | Some(TT::Rows)
        ) {
            return unsupported("limit options");
        }
        self.m_text_seq(&["ONLY"]);
        if self.peek_text_seq(&["WITH", "TIES"]) {
            return unsupported("WITH TIES");
        }
        Ok(())
    }

    fn parse_limit_by(&mut self) -> PResult<Option<Vec<Expr>>> {
        if self.m_text_seq(&["BY"]) {
            return Ok(Some(self.parse_csv(|p| p.parse_bitwise())?));
        }
        Ok(None)
    }

    fn parse_offset(&mut self, this: Option<Expr>) -> PResult<Option<Expr>> {
        if !self.m(TT::Offset) {
            return Ok(this);
        }
        let count = self.parse_term()?;
        self.m_any(&[TT::Row, TT::Rows]);
        let limit_by = self.parse_limit_by()?;
        Ok(Some(self.expression(node(
            "Offset",
            vec![
                ("this", oex(this)),
                ("expression", oex(count)),
                ("expressions", limit_by.map(Arg::List)),
            ],
        ))?))
    }

    fn parse_set_operations(&mut self, this: Option<Expr>) -> PResult<Option<Expr>> {
        let mut this = this;
        while let Some(t) = this.take() {
            match self.parse_set_operation(t)? {
                Ok(setop) => this = Some(setop),
                Err(t) => {
                    this = Some(t);
                    break;
                }
            }
        }
        if let Some(t) = this.as_mut() {
            if ["Union", "Except", "Intersect"].contains(&t.class.as_str()) {
                if let Some(Arg::Expr(expression)) = t
                    .args
                    .iter_mut()
                    .find(|(k, _)| k == "expression")
                    .map(|(_, v)| v)
                {
                    let mut moved = Vec::new();
                    for key in ["order", "limit", "offset"] {
                        if let Some(e) = take_child(expression, key) {
                            moved.push((key, e));
                        }
                    }
                    for (key, e) in moved {
                        t.set(key, Arg::Expr(Box::new(e)));
                    }
                }
            }
        }
        Ok(this)
    }

    /// `parse_set_operation`: `Ok(Err(this))` gives `this` back when no set operator follows.
    fn parse_set_operation(&mut self, this: Expr) -> PResult<Result<Expr, Expr>> {
        let start = self.index;
        // `_parse_join_parts`: the join method is consumed and ignored.
        self.m_any(&[TT::Asof, TT::Natural, TT::Positional]);
        let side = if self.m_any(&[TT::Full, TT::Left, TT::Right]) {
            Some(self.prev_text())
        } else {
            None
        };
        let kind = if self.m_any(&[
            TT::Anti,
            TT::Cross,
            TT::Inner,
            TT::Outer,
            TT::Semi,
            TT::StraightJoin,
        ]) {
            Some(self.prev_text())
        } else {
            None
        };
        let class = match self.ct() {
            Some(TT::Union) => "Union",
            Some(TT::Except) => "Except",
            Some(TT::Intersect) => "Intersect",
            _ => {
                self.retreat(start);
                return Ok(Err(this));
            }
        };
        self.advance(1);
        let distinct = if self.m(TT::Distinct) {
            true
        } else {
            // ALL, or SET_OP_DISTINCT_BY_DEFAULT (True for all three in both dialects).
            !self.m(TT::All)
        };
        if self.peek_text_seq(&["BY", "NAME"])
            || self.peek_text_seq(&["STRICT", "CORRESPONDING"])
            || self.peek_text_seq(&["CORRESPONDING"])
        {
            return unsupported("BY NAME / CORRESPONDING");
        }
        let expression = self.parse_select(true, false, true, false)?;
        let e = self.expression(node(
            class,
            vec![
                ("this", ex(this)),
                ("distinct", bl(distinct)),
                ("expression", oex(expression)),
                ("side", side.as_deref().and_then(st)),
                ("kind", kind.as_deref().and_then(st)),
            ],
        ))?;
        Ok(Ok(e))
    }

    // ---- tables and joins

    /// `_parse_table(schema=False, joins=joins, consume_pipe=consume_pipe)`.
    fn parse_table(&mut self, joins: bool, consume_pipe: bool) -> PResult<Option<Expr>> {
        self.enter()?;
        let r = self.parse_table_inner(joins, consume_pipe);
        self.leave();
        r
    }

    fn parse_table_inner(&mut self, joins: bool, consume_pipe: bool) -> PResult<Option<Expr>> {
        if !consume_pipe && !joins {
            let index = self.index;
            if let Some(mut table) = self.parse_table_parts_fast() {
                let curr = self.ct().unwrap_or(TT::Sentinel);
                let next = self.nt().unwrap_or(TT::Sentinel);
                if self.t.table_terminators.contains(&curr) && next != TT::MatchCondition {
                    return Ok(Some(table));
                }
                if !self.t.table_postfix.contains(&curr) && !self.t.table_postfix.contains(&next) {
                    if let Some(alias) = self.parse_table_alias(None)? {
                        table.set("alias", Arg::Expr(Box::new(alias)));
                    }
                    if self
                        .t
                        .table_terminators
                        .contains(&self.ct().unwrap_or(TT::Sentinel))
                    {
                        return Ok(Some(table));
                    }
                }
                self.retreat(index);
            }
        }
        if self.is(TT::Stream) {
            return unsupported("STREAM");
        }
        if self.m_pair(TT::Cross, TT::Apply, false)
            || self.m_pair(TT::Outer, TT::Apply, false)
            || self.is(TT::Lateral)
        {
            return unsupported("LATERAL/APPLY");
        }
        if self.m_pair(TT::Unnest, TT::LParen, false) {
            return unsupported("UNNEST");
        }
        if self.m_pair(TT::LParen, TT::Values, false)
            || self.peek_text_seq(&["VALUES"])
            || self.peek_text_seq(&["FORMAT", "VALUES"])
        {
            return unsupported("VALUES");
        }
        if let Some(mut subquery) = self.parse_select(false, true, true, true)? {
            if matches!(self.ct(), Some(TT::Pivot) | Some(TT::Unpivot)) {
                return unsupported("PIVOT");
            }
            if joins {
                while let Some(join) = self.parse_join()? {
                    append(&mut subquery, "joins", join);
                }
            }
            return Ok(Some(subquery));
        }
        if self.peek_text_seq(&["ROWS", "FROM"]) {
            return unsupported("ROWS FROM");
        }
        if self.is(TT::Only) {
            return unsupported("ONLY");
        }
        let this = self.parse_table_parts()?;
        let mut this = self
            .parse_bracket(Some(this))?
            .unwrap_or_else(|| Expr::new("Table"));
        self.m(TT::Star);
        if matches!(
            self.ct(),
            Some(TT::TimestampSnapshot) | Some(TT::VersionSnapshot)
        ) {
            return unsupported("version snapshot");
        }
        if let Some(alias) = self.parse_table_alias(None)? {
            this.set("alias", Arg::Expr(Box::new(alias)));
        }
        if self.is(TT::IndexedBy) {
            return unsupported("INDEXED BY");
        }
        if self.m_text_seq(&["NOT", "INDEXED"]) {
            this.set("indexed", Arg::Bool(false));
        }
        if this.is("Table") && self.peek_text_seq(&["AT"]) {
            return unsupported("AT");
        }
        if self.m_pair(TT::With, TT::LParen, false)
            || matches!(
                self.ct(),
                Some(TT::Force) | Some(TT::Ignore) | Some(TT::Use)
            )
        {
            return unsupported("table hints");
        }
        if matches!(self.ct(), Some(TT::Pivot) | Some(TT::Unpivot)) {
            return unsupported("PIVOT");
        }
        if self.is(TT::TableSample) {
            return unsupported("TABLESAMPLE");
        }
        if joins {
            while let Some(join) = self.parse_join()? {
                append(&mut this, "joins", join);
            }
        }
        if self.m_pair(TT::With, TT::Ordinality, false) {
            return unsupported("WITH ORDINALITY");
        }
        Ok(Some(this))
    }

    fn parse_table_parts_fast(&mut self) -> Option<Expr> {
        let index = self.index;
        let mut parts: Vec<Expr> = Vec::new();
        while matches!(self.ct(), Some(TT::Identifier) | Some(TT::Var)) {
            self.advance(1);
            let text = self.prev_text();
            let quoted = self.pt() == Some(TT::Identifier);
            let has_dot = self.m(TT::Dot);
            let curr = self.ct();
            if !has_dot {
                if curr.is_some_and(|c| self.t.table_postfix.contains(&c)) {
                    self.retreat(index);
                    return None;
                }
            } else if !matches!(curr, Some(TT::Identifier) | Some(TT::Var)) {
                self.retreat(index);
                return None;
            }
            parts.push(identifier(&text, quoted));
            if !has_dot {
                break;
            }
        }
        let n = parts.len();
        if n == 0 {
            return None;
        }
        let mut it = parts.into_iter();
        Some(match n {
            1 => node("Table", vec![("this", oex(it.next()))]),
            2 => {
                let db = it.next();
                node("Table", vec![("this", oex(it.next())), ("db", oex(db))])
            }
            _ => {
                let catalog = it.next();
                let db = it.next();
                let mut this = it.next();
                for part in it {
                    this = Some(binary("Dot", this, Some(part)));
                }
                node(
                    "Table",
                    vec![
                        ("this", oex(this)),
                        ("db", oex(db)),
                        ("catalog", oex(catalog)),
                    ],
                )
            }
        })
    }

    fn parse_table_part(&mut self) -> PResult<Option<Expr>> {
        let f = self.parse_function(FuncOpts {
            optional_parens: false,
            ..FUNC_DEFAULT
        })?;
        if f.is_some() {
            return Ok(f);
        }
        if let Some(i) = self.parse_id_var(false, None)? {
            return Ok(Some(i));
        }
        if let Some(i) = self.parse_string_as_identifier() {
            return Ok(Some(i));
        }
        self.parse_placeholder()
    }

    fn parse_table_parts(&mut self) -> PResult<Expr> {
        let mut catalog: Option<Arg> = None;
        let mut db: Option<Arg> = None;
        let mut table: Option<Arg> = oex(self.parse_table_part()?);
        while self.m(TT::Dot) {
            if catalog.is_some() {
                let part = self.parse_table_part()?;
                let this = match table.take() {
                    Some(Arg::Expr(b)) => Some(*b),
                    _ => return unsupported("dotted empty table part"),
                };
                table = ex(self.expression(binary("Dot", this, part))?);
            } else {
                catalog = db.take();
                db = table.take();
                table = match self.parse_table_part()? {
                    Some(e) => ex(e),
                    None => st(""),
                };
            }
        }
        let empty = match &table {
            None => true,
            Some(Arg::Str(s)) => s.is_empty(),
            _ => false,
        };
        if empty {
            return Err(self.error("Expected table name"));
        }
        let table = self.expression(node(
            "Table",
            vec![("this", table), ("db", db), ("catalog", catalog)],
        ))?;
        if self.peek_text_seq(&["CHANGES", "(", "INFORMATION", "=>"]) {
            return unsupported("CHANGES");
        }
        if self.curr_text_is(&["AT", "BEFORE", "END"]) {
            return unsupported("historical data");
        }
        if matches!(self.ct(), Some(TT::Pivot) | Some(TT::Unpivot)) {
            return unsupported("PIVOT");
        }
        Ok(table)
    }

    fn parse_join(&mut self) -> PResult<Option<Expr>> {
        if self.m(TT::Comma) {
            let table = self.try_parse(|p| p.parse_table(false, false))?;
            let Some(table) = table else { return Ok(None) };
            let mut join = self.expression(node("Join", vec![("this", ex(table))]))?;
            if self.dialect == Dialect::Sqlite {
                // JOINS_HAVE_EQUAL_PRECEDENCE
                join.set("kind", Arg::Str("CROSS".to_string()));
            }
            return Ok(Some(join));
        }
        let index = self.index;
        let method = if self.m_any(&[TT::Asof, TT::Natural, TT::Positional]) {
            Some(self.prev_text())
        } else {
            None
        };
        let side = if self.m_any(&[TT::Full, TT::Left, TT::Right]) {
            Some(self.prev_text())
        } else {
            None
        };
        let kind_tt = self.ct();
        let mut kind = if self.m_any(&[
            TT::Anti,
            TT::Cross,
            TT::Inner,
            TT::Outer,
            TT::Semi,
            TT::StraightJoin,
        ]) {
            Some(self.prev_text())
        } else {
            None
        };
        let kind_is_straight = kind.is_some() && kind_tt == Some(TT::StraightJoin);
        if self.peek_text_seq(&["DIRECTED"]) {
            return unsupported("DIRECTED");
        }
        let join = self.m(TT::Join) || kind_is_straight;
        let (mut method, mut side) = (method, side);
        if !join {
            self.retreat(index);
            kind = None;
            method = None;
            side = None;
        }
        if self.m_pair(TT::Outer, TT::Apply, false) || self.m_pair(TT::Cross, TT::Apply, false) {
            return unsupported("APPLY");
        }
        if !join {
            return Ok(None);
        }
        let kind_upper = kind.as_deref().map(upper);
        let mut this = self.parse_table(false, false)?;
        if self.is(TT::MatchCondition) {
            return unsupported("MATCH_CONDITION");
        }
        let mut on = None;
        let mut using = None;
        if self.m(TT::On) {
            on = self.parse_disjunction()?;
        } else if self.m(TT::Using) {
            using = Some(self.parse_using_identifiers()?);
        } else if method.is_none()
            && !this.as_ref().is_some_and(|t| t.is("Unnest"))
            && !matches!(kind_upper.as_deref(), Some("CROSS") | Some("ARRAY"))
        {
            let index = self.index;
            let mut joins = Vec::new();
            while let Some(j) = self.parse_join()? {
                joins.push(j);
            }
            let mut keep = false;
            if !joins.is_empty() && self.m(TT::On) {
                on = self.parse_disjunction()?;
                keep = true;
            } else if !joins.is_empty() && self.m(TT::Using) {
                using = Some(self.parse_using_identifiers()?);
                keep = true;
            } else {
                self.retreat(index);
            }
            if let Some(t) = this.as_mut() {
                if keep {
                    t.set("joins", Arg::List(joins));
                } else {
                    t.unset("joins");
                }
            } else if keep {
                return unsupported("joins on a missing table");
            }
        }
        if matches!(self.ct(), Some(TT::Pivot) | Some(TT::Unpivot)) {
            return unsupported("PIVOT");
        }
        let on_missing = on.is_none();
        let using_missing = using.as_ref().is_none_or(|u: &Vec<Expr>| u.is_empty());
        if self.dialect == Dialect::Sqlite
            && on_missing
            && using_missing
            && method.is_none()
            && matches!(kind_upper.as_deref(), None | Some("INNER") | Some("OUTER"))
        {
            // ADD_JOIN_ON_TRUE
            on = Some(node("Boolean", vec![("this", bl(true))]));
        }
        let e = node(
            "Join",
            vec![
                ("this", oex(this.take())),
                (
                    "method",
                    method.as_deref().map(upper).as_deref().and_then(st),
                ),
                ("side", side.as_deref().map(upper).as_deref().and_then(st)),
                ("kind", kind_upper.as_deref().and_then(st)),
                ("on", oex(on)),
                ("using", using.map(Arg::List)),
            ],
        );
        Ok(Some(self.expression(e)?))
    }

    fn parse_using_identifiers(&mut self) -> PResult<Vec<Expr>> {
        let wrapped = self.m(TT::LParen);
        let items = self.parse_csv(|p| {
            let c = p.parse_column()?;
            Ok(match c {
                Some(mut c) if c.is("Column") => take_child(&mut c, "this"),
                other => other,
            })
        })?;
        if wrapped {
            self.match_r_paren()?;
        }
        Ok(items)
    }
}

fn append(e: &mut Expr, key: &str, value: Expr) {
    if let Some((_, Arg::List(l))) = e.args.iter_mut().find(|(k, _)| k == key) {
        l.push(value);
        return;
    }
    e.set(key, Arg::List(vec![value]));
}

/// `Func.from_arg_list`: positional arguments to the class's argument keys in order, the last
/// key taking the rest as a list when the class is variadic.
fn from_arg_list(class: &str, args: Vec<Expr>) -> PResult<Expr> {
    let Some((flags, arg_types)) = class_info(class) else {
        return unsupported(&format!("class {class}"));
    };
    let mut e = Expr::new(class);
    if flags & tables::CLASS_VAR_LEN_ARGS != 0 {
        let Some((last, fixed)) = arg_types.split_last() else {
            return unsupported("variadic class without args");
        };
        let mut it = args.into_iter();
        for (k, _) in fixed {
            match it.next() {
                Some(a) => e.args.push((k.to_string(), Arg::Expr(Box::new(a)))),
                None => break,
            }
        }
        let rest: Vec<Expr> = it.collect();
        e.set(last.0, Arg::List(rest));
    } else {
        for ((k, _), a) in arg_types.iter().zip(args) {
            e.args.push((k.to_string(), Arg::Expr(Box::new(a))));
        }
    }
    Ok(e)
}
