//! Shared machinery of all templates: the rendering flow of Unitxt's `Template.process`,
//! Python `str.format(**fields)` semantics ([`py_format`]), `str.title()` ([`py_title`]) and
//! the fields every template accepts ([`TemplateBase`]).

use std::borrow::Cow;

use serde::Deserialize;

use crate::artifact::Art;
use crate::error::{Error, Result};
use crate::py::repr::{repr, str as py_str};
use crate::templates::serializers::{default_template_serializer, serialize_with};
use crate::templates::{Rendered, Serializer, Template};
use crate::value::{Constant, Instance, Shared, Value};

/// Name of the split Unitxt renders without references (`constants.inference_stream`).
pub const INFERENCE_STREAM: &str = "__INFERENCE_STREAM__";

/// An ordered field map (a Python dict of field name to value).
pub type Fields = crate::value::Map;

/// The values [`TemplateKind::serialize`] replaced by their texts, with their positions.
pub type Replaced = Vec<(usize, Value)>;

/// Puts the values that [`TemplateKind::serialize`] replaced back at their positions in `data`
/// (which has kept its keys and their order since).
pub fn restore_serialized(data: &mut Fields, replaced: Replaced) {
    for (i, v) in replaced {
        if let Some((_, slot)) = data.get_index_entry_mut(i) {
            *slot = v;
        }
    }
}

fn default_true() -> bool {
    true
}

/// Arguments common to every template (Unitxt's `Template` fields).
///
/// `postprocessors` is `None` when the catalog does not give it; each template then uses its
/// own default (see [`TemplateKind::default_postprocessors`]). `serializer` is `None` for the
/// template's default serializer.
#[derive(Deserialize, Default)]
pub struct TemplateBase {
    /// Return instances that already have `source`, `target` and `references` unchanged.
    #[serde(default = "default_true")]
    pub skip_rendered_instance: bool,
    /// Processor names (or inline operator objects) copied to the instance's `postprocessors`;
    /// interned ([`crate::value::intern`]), so that the copy allocates only the list.
    #[serde(default, deserialize_with = "crate::value::intern::deserialize_interned_list")]
    pub postprocessors: Option<Vec<Value>>,
    /// The postprocessors in effect (`postprocessors` or the template's default), made on
    /// first use and lent to every instance the template renders.
    #[serde(skip)]
    postprocessors_constant: std::sync::OnceLock<Constant>,
    /// Format string over the serialized input fields; an instance's own `instruction` wins.
    #[serde(default)]
    pub instruction: String,
    /// Format string over the serialized input fields.
    #[serde(default)]
    pub target_prefix: String,
    /// Input fields whose (string) value is title-cased before serialization.
    #[serde(default)]
    pub title_fields: Vec<String>,
    /// Serializer override.
    #[serde(default)]
    pub serializer: Option<Art<dyn Serializer>>,
    /// The serializer in effect once a recipe added its own ([`Template::add_serializers`]).
    #[serde(skip)]
    added_serializers: std::sync::OnceLock<std::sync::Arc<dyn Serializer>>,
}

/// The hooks of a concrete template, called in order by [`render`] (mirrors the overridable
/// methods of Unitxt's `Template`). Every type implementing it is a [`Template`].
pub trait TemplateKind: Send + Sync {
    /// The common arguments.
    fn base(&self) -> &TemplateBase;
    /// Unitxt's class name, for error messages.
    fn class_name(&self) -> &'static str;
    /// Postprocessors used when the catalog gives none.
    fn default_postprocessors(&self) -> Vec<Value> {
        vec![Value::String(crate::value::Str::const_new("processors.to_string_stripped"))]
    }
    /// The serializer used when the catalog gives none.
    fn default_serializer(&self) -> &'static dyn Serializer {
        default_template_serializer()
    }
    /// The serializer in effect. Borrowed, not an `Arc` clone: a clone per instance would
    /// update a reference count shared by the worker threads, passing its cache line between
    /// the cores for every instance.
    fn serializer(&self) -> &dyn Serializer {
        if let Some(s) = self.base().added_serializers.get() {
            return s.as_ref();
        }
        match &self.base().serializer {
            Some(s) => s.inner.as_ref(),
            None => self.default_serializer(),
        }
    }
    /// Changes input and reference fields in place (not on the inference split). The maps are
    /// the instance's own `input_fields` / `reference_fields`, so changes stay in the output.
    fn preprocess_input_and_reference_fields(&self, _input: &mut Fields, _refs: Option<&mut Fields>) -> Result<()> {
        Ok(())
    }
    /// Prepares input fields for serialization: `None` after changing `input` in place (these
    /// changes stay in the instance), or `Some` new map that leaves the instance untouched.
    fn preprocess_input_fields(&self, _input: &mut Fields) -> Result<Option<Fields>> {
        Ok(None)
    }
    /// Prepares reference fields for serialization: `Some` new map to serialize instead of
    /// `refs`, or `None` (the default) to serialize `refs` itself. The instance keeps `refs`
    /// either way.
    fn preprocess_reference_fields(&self, _refs: &Fields) -> Result<Option<Fields>> {
        Ok(None)
    }
    /// Serializes every field value to text, in place (Unitxt's `Template.serialize`): each
    /// value of `data` becomes the string of its text, and the values replaced are returned
    /// with their positions, for [`restore_serialized`]. A string that the serializer passes
    /// unchanged ([`Serializer::passes_strings`]) is its own text: it stays and is not
    /// returned. A serializer may change a value before it is replaced (an image becomes its
    /// placeholder); the value returned is the changed one.
    fn serialize(&self, data: &mut Fields, instance: &mut Instance) -> Result<Replaced> {
        let ser = self.serializer();
        let passes = ser.passes_strings();
        let mut replaced = Replaced::new();
        for (i, (_, v)) in data.iter_mut().enumerate() {
            serialize_in_place(ser, passes, (i, v), instance, &mut replaced)?;
        }
        Ok(replaced)
    }
    /// The `source` text from the serialized input fields.
    fn input_fields_to_source(&self, input: &Fields) -> Result<String>;
    /// `target` and `references` from the serialized reference fields.
    fn reference_fields_to_target_and_references(&self, refs: &Fields) -> Result<(String, Vec<String>)>;
    /// [`TemplateKind::reference_fields_to_target_and_references`] as the values the instance
    /// gets: the `target` string and the `references` list of strings. A template whose one
    /// reference is its target makes the two without copying the text between `String`s.
    fn target_and_references(&self, refs: &Fields) -> Result<(Value, Value)> {
        let (target, references) = self.reference_fields_to_target_and_references(refs)?;
        Ok((Value::String(target.into()), Value::Array(references.into_iter().map(Value::from).collect())))
    }
    /// Last changes, once everything is rendered: to the input fields as the instance keeps
    /// them (`input`, its `input_fields`), and to the instance's other fields.
    fn post_process(&self, _input: &mut Fields, _instance: &mut Instance) -> Result<()> {
        Ok(())
    }
    /// Python's `format_str.format(**data)` with Unitxt's error for a missing field.
    fn format(&self, data: &Fields, data_type: &str, format_str: Option<&str>, format_name: &str) -> Result<String> {
        apply_formatting(self.class_name(), data, data_type, format_str, format_name)
    }
    /// [`TemplateKind::format`] as a [`Str`](crate::value::Str) (see [`py_format_str`]):
    /// `render` formats the instruction and the target prefix with this one, and
    /// `input_output_template` its target. A template that overrides `format` must override
    /// this too, with the same texts and errors (none overrides either).
    fn format_str(&self, data: &Fields, data_type: &str, format_str: Option<&str>, format_name: &str) -> Result<crate::value::Str> {
        apply_formatting_with(self.class_name(), data, data_type, format_str, format_name, py_format_str)
    }
}

impl<T: TemplateKind> Template for T {
    fn render(&self, instance: &mut Instance, split: &str) -> Result<Option<Rendered<'_>>> {
        render(self, instance, split)
    }

    fn add_serializers(&self, serializers: Vec<Art<dyn Serializer>>) -> Result<()> {
        let items = self.serializer().serializers().ok_or_else(|| {
            Error::unsupported(format!(
                "the serializer of this {} is not a multi_type_serializer: the recipe's `serializer` cannot be added to it",
                self.class_name()
            ))
        })?;
        let all: Vec<Art<dyn Serializer>> = serializers.into_iter().chain(items.iter().cloned()).collect();
        let added: std::sync::Arc<dyn Serializer> = std::sync::Arc::new(crate::templates::serializers::MultiTypeSerializer::new(all));
        self.base().added_serializers.set(added).map_err(|_| Error::invalid("serializers were added to this template already"))
    }
}

/// Takes the dict in field `key` out of `instance`, leaving an empty dict in its place (so
/// that putting it back keeps the key's position). `None` when missing or `null`.
fn take_fields_of(instance: &mut Instance, key: &str) -> Result<Option<Fields>> {
    match instance.get_mut(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(m)) => Ok(Some(std::mem::take(m))),
        Some(other) => Err(Error::invalid(format!(
            "instance field `{key}` must be a dict, got {}",
            crate::artifact::short(other)
        ))),
    }
}

/// Replaces field value `v` (at position `i` of its dict) by its text, unless `passes` (the
/// serializer gives strings back unchanged) and it is a string; the value replaced is pushed
/// onto `replaced` with its position (see [`TemplateKind::serialize`]).
#[inline(always)]
pub(crate) fn serialize_in_place(
    ser: &dyn Serializer,
    passes: bool,
    (i, v): (usize, &mut Value),
    instance: &mut Instance,
    replaced: &mut Replaced,
) -> Result<()> {
    if !(passes && v.is_string()) {
        let text = serialize_with(ser, v, instance)?;
        replaced.push((i, std::mem::replace(v, Value::String(text.into()))));
    }
    Ok(())
}

/// [`Template::render`] of a [`TemplateKind`], in the order of Unitxt's `Template.process`:
/// the input fields are prepared, title-cased and serialized; `source`, `instruction` and
/// `target_prefix` are formatted from their texts; then (except on the inference split) the
/// reference fields are serialized into `target` and `references`; last comes the
/// template's `post_process`. The input and reference fields are handed back with their
/// values, not their texts.
pub fn render<'t, T: TemplateKind + ?Sized>(t: &'t T, instance: &mut Instance, split: &str) -> Result<Option<Rendered<'t>>> {
    let b = t.base();
    if b.skip_rendered_instance
        && instance.contains_key("source")
        && instance.contains_key("target")
        && instance.contains_key("references")
    {
        return Ok(None);
    }
    let inference = split == INFERENCE_STREAM;
    let mut input =
        take_fields_of(instance, "input_fields")?.ok_or_else(|| Error::invalid("the instance has no `input_fields` to render"))?;
    let mut refs = take_fields_of(instance, "reference_fields")?;
    if !inference {
        t.preprocess_input_and_reference_fields(&mut input, refs.as_mut())?;
    }
    let mut fresh = t.preprocess_input_fields(&mut input)?;
    let replaced = {
        let cur = match fresh.as_mut() {
            Some(f) => f,
            None => &mut input,
        };
        for f in &b.title_fields {
            let v = cur
                .get_mut(f)
                .ok_or_else(|| Error::not_found(format!("title field {f:?} is not an input field")))?;
            match v {
                Value::String(s) => *s = py_title(s).into(),
                other => {
                    return Err(Error::invalid(format!(
                        "title field {f:?} must be a string, got {}",
                        crate::artifact::short(other)
                    )))
                }
            }
        }
        t.serialize(cur, instance)?
    };
    // The input fields hold their texts until they are restored below.
    let serialized_inputs = fresh.as_ref().unwrap_or(&input);
    let source = t.input_fields_to_source(serialized_inputs)?;
    // An instance's own instruction is the format string (after serializing: serializers may
    // add fields, but none adds this one).
    let instruction_fmt = match instance.get("instruction") {
        None => Some(b.instruction.as_str()),
        Some(Value::String(s)) => Some(s.as_str()),
        Some(_) => None,
    };
    let instruction = t.format_str(serialized_inputs, "input field", instruction_fmt, "instruction")?;
    let target_prefix = t.format_str(serialized_inputs, "input field", Some(&b.target_prefix), "target_prefix")?;
    if fresh.is_none() {
        restore_serialized(&mut input, replaced);
    }
    let postprocessors = b.postprocessors_constant.get_or_init(|| {
        Constant::new(Value::Array(b.postprocessors.clone().unwrap_or_else(|| t.default_postprocessors())))
    });
    let mut rendered = Rendered {
        source: Value::String(source.into()),
        instruction: Some(Value::String(instruction)),
        target_prefix: Some(Value::String(target_prefix)),
        input_fields: None,
        reference_fields: None,
        target: None,
        references: None,
        postprocessors: Some(Shared::Lent(postprocessors)),
    };
    if !inference {
        let mut r = refs.take().ok_or_else(|| Error::invalid("the instance has no `reference_fields` to render"))?;
        // Serialized in place and put back (or a new map of the template's), so that the
        // instance keeps its reference fields as they were.
        let (target, references) = match t.preprocess_reference_fields(&r)? {
            Some(mut prepared) => {
                t.serialize(&mut prepared, instance)?;
                t.target_and_references(&prepared)?
            }
            None => {
                let replaced = t.serialize(&mut r, instance)?;
                let out = t.target_and_references(&r)?;
                restore_serialized(&mut r, replaced);
                out
            }
        };
        refs = Some(r);
        rendered.target = Some(target);
        rendered.references = Some(references);
    }
    t.post_process(&mut input, instance)?;
    rendered.input_fields = Some(input);
    rendered.reference_fields = refs;
    Ok(Some(rendered))
}

/// Unitxt's `Template.apply_formatting`: `format_str.format(**data)`; a missing field becomes
/// an error listing the available ones, a missing format string an error naming it.
pub fn apply_formatting(
    class: &str,
    data: &Fields,
    data_type: &str,
    format_str: Option<&str>,
    format_name: &str,
) -> Result<String> {
    apply_formatting_with(class, data, data_type, format_str, format_name, py_format)
}

/// [`apply_formatting`] through `format` ([`py_format`] or [`py_format_str`]).
fn apply_formatting_with<S>(
    class: &str,
    data: &Fields,
    data_type: &str,
    format_str: Option<&str>,
    format_name: &str,
    format: fn(&str, &Fields) -> std::result::Result<S, FormatError>,
) -> Result<S> {
    let f = format_str.ok_or_else(|| {
        Error::invalid(format!("required field '{format_name}' of class {class} is not set"))
    })?;
    format(f, data).map_err(|e| match e {
        FormatError::Key(_) => Error::invalid(format!(
            "available {data_type}s are [{}] but {class}.{format_name} format requires different ones: {f:?}",
            data.keys().cloned().collect::<Vec<_>>().join(", ")
        )),
        FormatError::Other(m) => Error::invalid(format!("in {class}.{format_name} {f:?}: {m}")),
    })
}

/// Why [`py_format`] failed: a missing key (Python's `KeyError`) or anything else.
#[derive(Debug, Clone, PartialEq)]
pub enum FormatError {
    /// A field or dict key that is not there.
    Key(String),
    /// Malformed format string, bad index, unsupported spec, ...
    Other(String),
}

fn other<T>(m: impl Into<String>) -> std::result::Result<T, FormatError> {
    Err(FormatError::Other(m.into()))
}

/// Named arguments of [`py_format`]: a dict of fields, or a list of (name, value) pairs.
pub trait FormatArgs {
    /// The value of argument `name`, if given.
    fn arg(&self, name: &str) -> Option<&Value>;
    /// [`FormatArgs::arg`], trying position `hint` first where the arguments have positions
    /// (see [`crate::value::Map::get_hinted`]).
    fn arg_hinted(&self, name: &str, _hint: &std::cell::Cell<u32>) -> Option<&Value> {
        self.arg(name)
    }
}

impl FormatArgs for Fields {
    fn arg(&self, name: &str) -> Option<&Value> {
        self.get(name)
    }
    fn arg_hinted(&self, name: &str, hint: &std::cell::Cell<u32>) -> Option<&Value> {
        self.get_hinted(name, hint)
    }
}

impl FormatArgs for [(&str, &Value)] {
    fn arg(&self, name: &str) -> Option<&Value> {
        self.iter().find(|(k, _)| *k == name).map(|(_, v)| *v)
    }
}

/// Python's `fmt.format(**data)`: `{name}`, `{name[0]}`, `{name[key]}`, conversions `!s`,
/// `!r`, `!a`, format specs (nested `{}` allowed) and `{{` / `}}` escapes. Positional fields
/// (`{}`, `{0}`) fail as in Python, since only keyword arguments are given.
pub fn py_format<A: FormatArgs + ?Sized>(fmt: &str, data: &A) -> std::result::Result<String, FormatError> {
    match compiled(fmt) {
        Some(c) => match c.memo.recall(&c.pieces, fmt, data) {
            Some(out) => Ok(out.as_str().to_owned()),
            None => format_compiled(&c, fmt, data),
        },
        None => format_full(fmt, data),
    }
}

/// [`py_format`] as a [`Str`](crate::value::Str), for texts that become string values: a
/// text recalled from the string's memo, kept for the process once it has kept repeating
/// past the memo's trial (at most eight texts per format string), is shared rather than
/// copied, and a string that is one `{name}` of a string argument gives that argument's text
/// without a `String` in between. Same texts and errors as [`py_format`].
pub fn py_format_str<A: FormatArgs + ?Sized>(fmt: &str, data: &A) -> std::result::Result<crate::value::Str, FormatError> {
    match compiled(fmt) {
        Some(c) => {
            if let Some(out) = c.memo.recall(&c.pieces, fmt, data) {
                return Ok(out);
            }
            if let [Piece::Field { name, conversion: None, spec, plain: true, hint }] = &c.pieces[..] {
                if spec.is_empty() {
                    if let Some(Value::String(text)) = data.arg_hinted(&fmt[name.clone()], hint) {
                        return Ok(text.clone());
                    }
                }
            }
            format_compiled(&c, fmt, data).map(crate::value::Str::from)
        }
        None => format_full(fmt, data).map(crate::value::Str::from),
    }
}

/// [`py_format`] of a well-formed string, its parse `c`, past its memo.
fn format_compiled<A: FormatArgs + ?Sized>(c: &Compiled, fmt: &str, data: &A) -> std::result::Result<String, FormatError> {
    // Sized for the longest text this string gave so far (fields such as a question
    // with its choices are much longer than the format string itself).
    let mut out = String::with_capacity(c.longest.get().max(fmt.len() + 64));
    for p in c.pieces.iter() {
        match p {
            Piece::Lit(r) => out.push_str(&fmt[r.clone()]),
            // `{name}` of a string argument: its text.
            Piece::Field { name, conversion: None, spec, plain: true, hint } if spec.is_empty() => {
                let name = &fmt[name.clone()];
                match data.arg_hinted(name, hint) {
                    Some(Value::String(text)) => out.push_str(text),
                    Some(value) => emit_value(value, None, "", &mut out)?,
                    None => return Err(FormatError::Key(name.to_string())),
                }
            }
            Piece::Field { name, conversion, spec, .. } => {
                let value = lookup(&fmt[name.clone()], data)?;
                emit_value(&value, *conversion, &fmt[spec.clone()], &mut out)?
            }
        }
    }
    c.longest.set(c.longest.get().max(out.len()));
    c.memo.learn(&c.pieces, fmt, data, &out);
    Ok(out)
}

/// [`py_format`] of a malformed string or one with a spec holding nested fields: the full
/// parse, with Python's errors.
fn format_full<A: FormatArgs + ?Sized>(fmt: &str, data: &A) -> std::result::Result<String, FormatError> {
    let mut out = String::with_capacity(fmt.len() + 64);
    format_depth(fmt, data, 2, &mut out)?;
    Ok(out)
}

/// A parsed format string and the length of the longest text formatted with it so far.
struct Compiled {
    pieces: Vec<Piece>,
    longest: std::cell::Cell<usize>,
    memo: Memo,
}

/// The last text of a format string whose fields are all `{name}`s (no conversion, no spec),
/// with the field texts it was made from. Many such strings get the same field texts for
/// every instance (an instruction naming the task's classes, a target prefix), and then the
/// text is copied instead of formatted again. A string whose fields keep changing (the input
/// format with the instance's text) stops being memoized after [`Memo::TRIAL`] calls.
///
/// A text that is still recalled past the trial is kept for the process
/// ([`crate::value::intern::intern`]), so that recalling it copies no text; at most
/// [`Memo::KEPT_MAX`] texts per string are kept, later ones are copied as before.
struct Memo {
    /// `Some` while memoizing: the field texts, in the order of the fields, the text, and
    /// whether that text is kept for the process.
    last: std::cell::RefCell<Option<(Vec<crate::value::Str>, crate::value::Str, bool)>>,
    /// Texts of this string kept for the process so far.
    kept: std::cell::Cell<u8>,
    /// False for a string that is not memoized (another kind of field, or too few repeats).
    on: std::cell::Cell<bool>,
    /// Calls and repeats so far, counted up to [`Memo::TRIAL`] calls.
    calls: std::cell::Cell<u32>,
    repeats: std::cell::Cell<u32>,
}

impl Memo {
    /// Calls after which a string is kept memoized only if at least three in four repeated
    /// their previous field texts.
    const TRIAL: u32 = 32;
    /// Texts of one format string kept for the process at most.
    const KEPT_MAX: u8 = 8;

    fn new(pieces: &[Piece]) -> Self {
        let plain = |p: &Piece| match p {
            Piece::Lit(_) => true,
            Piece::Field {
                conversion,
                spec,
                plain,
                ..
            } => conversion.is_none() && spec.is_empty() && *plain,
        };
        let fields = pieces
            .iter()
            .filter(|p| matches!(p, Piece::Field { .. }))
            .count();
        Memo {
            last: std::cell::RefCell::new(None),
            kept: std::cell::Cell::new(0),
            on: std::cell::Cell::new(fields > 0 && pieces.iter().all(plain)),
            calls: std::cell::Cell::new(0),
            repeats: std::cell::Cell::new(0),
        }
    }

    /// The string fields of `pieces` in `data`, in order, handed to `f` until it returns
    /// false; false when a field is missing or not a string (the full path then formats it,
    /// or reports the error).
    fn each_field<A: FormatArgs + ?Sized>(
        pieces: &[Piece],
        fmt: &str,
        data: &A,
        mut f: impl FnMut(usize, &crate::value::Str) -> bool,
    ) -> bool {
        let mut k = 0;
        for p in pieces {
            if let Piece::Field { name, hint, .. } = p {
                match data.arg_hinted(&fmt[name.clone()], hint) {
                    Some(Value::String(text)) if f(k, text) => k += 1,
                    _ => return false,
                }
            }
        }
        true
    }

    /// The last text, when `data` has the same field texts as last time. Past the trial, the
    /// text is kept for the process on its first recall (while this string has kept fewer
    /// than [`Memo::KEPT_MAX`]).
    fn recall<A: FormatArgs + ?Sized>(
        &self,
        pieces: &[Piece],
        fmt: &str,
        data: &A,
    ) -> Option<crate::value::Str> {
        if !self.on.get() {
            return None;
        }
        let mut last = self.last.borrow_mut();
        let (texts, out, kept) = last.as_mut()?;
        if !Self::each_field(pieces, fmt, data, |k, t| crate::value::json::same_str(&texts[k], t)) {
            return None;
        }
        if self.calls.get() < Self::TRIAL {
            self.calls.set(self.calls.get() + 1);
            self.repeats.set(self.repeats.get() + 1);
        } else if !*kept && self.kept.get() < Self::KEPT_MAX {
            *out = crate::value::intern::intern(out);
            *kept = true;
            self.kept.set(self.kept.get() + 1);
        }
        Some(out.clone())
    }

    /// Records `out`, just formatted from `data`, while on trial or memoizing.
    fn learn<A: FormatArgs + ?Sized>(&self, pieces: &[Piece], fmt: &str, data: &A, out: &str) {
        if !self.on.get() {
            return;
        }
        let calls = self.calls.get();
        if calls < Self::TRIAL {
            self.calls.set(calls + 1);
        } else if self.repeats.get() * 4 < Self::TRIAL * 3 {
            self.on.set(false);
            *self.last.borrow_mut() = None;
            return;
        }
        let mut texts = Vec::new();
        if Self::each_field(pieces, fmt, data, |_, t| {
            texts.push(t.clone());
            true
        }) {
            *self.last.borrow_mut() = Some((texts, out.into(), false));
        }
    }
}

/// A piece of a parsed format string, as byte ranges into it.
enum Piece {
    /// Literal text (a `{{` or `}}` escape is a one-byte literal).
    Lit(std::ops::Range<usize>),
    /// A replacement field without nested fields in its spec; `plain` when the name is one
    /// keyword argument (no `.`, `[`, not a position), which needs no [`lookup`].
    /// `hint`: where the argument was found last time (see [`crate::value::Map::get_hinted`]).
    Field { name: std::ops::Range<usize>, conversion: Option<char>, spec: std::ops::Range<usize>, plain: bool, hint: std::cell::Cell<u32> },
}

/// Format strings parsed so far on this thread (template and format strings repeat for every
/// instance); `None` for strings that need the full parse. Bounded: cleared when full.
type FormatCache = std::collections::HashMap<Box<str>, Option<std::rc::Rc<Compiled>>, foldhash::fast::FixedState>;

thread_local! {
    static FORMATS: std::cell::RefCell<FormatCache> = std::cell::RefCell::new(FormatCache::default());
    /// The last few strings looked up, checked before [`FORMATS`] (a comparison instead of
    /// hashing: an instance formats the same few strings).
    static RECENT: std::cell::RefCell<Recent> = std::cell::RefCell::new(Recent::default());
}

const FORMAT_CACHE_MAX: usize = 256;
const RECENT_MAX: usize = 8;

#[derive(Default)]
struct Recent {
    entries: Vec<(Box<str>, Option<std::rc::Rc<Compiled>>)>,
    /// The entry replaced next when full.
    next: usize,
}

fn compiled(fmt: &str) -> Option<std::rc::Rc<Compiled>> {
    if let Some(hit) = RECENT.with(|r| r.borrow().entries.iter().find(|(k, _)| **k == *fmt).map(|(_, p)| p.clone())) {
        return hit;
    }
    let p = FORMATS.with(|c| {
        if let Some(p) = c.borrow().get(fmt) {
            return p.clone();
        }
        let p = compile(fmt).map(|pieces| std::rc::Rc::new(Compiled { memo: Memo::new(&pieces), pieces, longest: std::cell::Cell::new(0) }));
        let mut c = c.borrow_mut();
        if c.len() >= FORMAT_CACHE_MAX {
            c.clear();
        }
        c.insert(fmt.into(), p.clone());
        p
    });
    RECENT.with(|r| {
        let mut r = r.borrow_mut();
        let entry = (fmt.into(), p.clone());
        if r.entries.len() < RECENT_MAX {
            r.entries.push(entry);
        } else {
            let at = r.next;
            r.entries[at] = entry;
            r.next = (at + 1) % RECENT_MAX;
        }
    });
    p
}

/// A piece of a format string made of literal text and `{name}` fields only (see
/// [`plain_pieces`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlainPiece {
    /// Literal text, with `{{` and `}}` escapes resolved.
    Text(String),
    /// A `{name}` field: one keyword argument, without conversion or format spec.
    Field(String),
}

/// The pieces of `fmt` when it is well-formed and every field is a plain `{name}` (no `!r`
/// conversion, no `:spec`, no index, attribute or position); `None` otherwise. Formatting
/// such a string with string arguments is concatenation: each field gives its argument's
/// text, as Python's `str.format` does. Adjacent literal texts are one piece.
pub fn plain_pieces(fmt: &str) -> Option<Vec<PlainPiece>> {
    let mut out: Vec<PlainPiece> = Vec::new();
    for p in compile(fmt)? {
        match p {
            Piece::Lit(r) => match out.last_mut() {
                Some(PlainPiece::Text(t)) => t.push_str(&fmt[r]),
                _ => out.push(PlainPiece::Text(fmt[r].to_string())),
            },
            Piece::Field { name, conversion: None, spec, plain: true, .. } if spec.is_empty() => out.push(PlainPiece::Field(fmt[name].to_string())),
            Piece::Field { .. } => return None,
        }
    }
    Some(out)
}

/// Parses `fmt` into pieces; `None` when it is malformed or a spec holds nested fields (then
/// [`format_depth`] formats it and reports the error Python would).
fn compile(fmt: &str) -> Option<Vec<Piece>> {
    let b = fmt.as_bytes();
    let mut pieces = Vec::new();
    let mut lit = 0;
    let mut i = 0;
    let push_lit = |pieces: &mut Vec<Piece>, r: std::ops::Range<usize>| {
        if !r.is_empty() {
            pieces.push(Piece::Lit(r));
        }
    };
    while i < b.len() {
        match b[i] {
            b'}' => {
                if b.get(i + 1) != Some(&b'}') {
                    return None;
                }
                push_lit(&mut pieces, lit..i + 1);
                i += 2;
                lit = i;
            }
            b'{' => {
                push_lit(&mut pieces, lit..i);
                if b.get(i + 1) == Some(&b'{') {
                    push_lit(&mut pieces, i..i + 1);
                    i += 2;
                    lit = i;
                    continue;
                }
                let start = i + 1;
                let end = start + field_end(&b[start..]).ok()??;
                let (name, conversion, spec) = parse_field(&fmt[start..end]).ok()?;
                let (name, spec) = (start + name.start..start + name.end, start + spec.start..start + spec.end);
                if fmt[spec.clone()].contains('{') {
                    return None;
                }
                let n = &fmt[name.clone()];
                let plain = !n.is_empty() && !n.contains(['.', '[']) && !n.bytes().all(|c| c.is_ascii_digit());
                pieces.push(Piece::Field { name, conversion, spec, plain, hint: std::cell::Cell::new(0) });
                i = end + 1;
                lit = i;
            }
            _ => i = memchr::memchr2(b'{', b'}', &b[i..]).map_or(b.len(), |k| i + k),
        }
    }
    push_lit(&mut pieces, lit..b.len());
    Some(pieces)
}

/// The length of a replacement field's text (after its `{`, up to its matching `}`): `Ok(None)`
/// when the string ends first, an error on a `{` in the field name.
fn field_end(b: &[u8]) -> std::result::Result<Option<usize>, FormatError> {
    let mut j = 0;
    let mut count = 1;
    let mut in_spec = false;
    while j < b.len() {
        match b[j] {
            b'[' if !in_spec => {
                while j < b.len() && b[j] != b']' {
                    j += 1;
                }
                if j >= b.len() {
                    return Ok(None);
                }
            }
            b':' if !in_spec => in_spec = true,
            b'{' => {
                if !in_spec {
                    return other("unexpected '{' in field name");
                }
                count += 1;
            }
            b'}' => {
                count -= 1;
                if count == 0 {
                    return Ok(Some(j));
                }
            }
            _ => {}
        }
        j += 1;
    }
    Ok(None)
}

/// Appends `fmt` formatted with `data` to `out`. All delimiters are ASCII, so the scan works on
/// bytes and slices `fmt` only at delimiter positions.
fn format_depth<A: FormatArgs + ?Sized>(
    fmt: &str,
    data: &A,
    depth: u32,
    out: &mut String,
) -> std::result::Result<(), FormatError> {
    if depth == 0 {
        return other("Max string recursion exceeded");
    }
    let b = fmt.as_bytes();
    let mut i = 0;
    let mut lit = 0;
    while i < b.len() {
        match b[i] {
            b'}' => {
                if b.get(i + 1) == Some(&b'}') {
                    out.push_str(&fmt[lit..=i]);
                    i += 2;
                    lit = i;
                    continue;
                }
                return other("Single '}' encountered in format string");
            }
            b'{' => {
                out.push_str(&fmt[lit..i]);
                if b.get(i + 1) == Some(&b'{') {
                    out.push('{');
                    i += 2;
                    lit = i;
                    continue;
                }
                // a replacement field: find its closing brace
                let start = i + 1;
                let Some(len) = field_end(&b[start..])? else {
                    return other("expected '}' before end of string");
                };
                let j = start + len;
                render_field(&fmt[start..j], data, depth, out)?;
                i = j + 1;
                lit = i;
            }
            // Literal text: skip to the next brace.
            _ => i = memchr::memchr2(b'{', b'}', &b[i..]).map_or(b.len(), |k| i + k),
        }
    }
    out.push_str(&fmt[lit..]);
    Ok(())
}

fn render_field<A: FormatArgs + ?Sized>(
    field: &str,
    data: &A,
    depth: u32,
    out: &mut String,
) -> std::result::Result<(), FormatError> {
    let (name, conversion, spec) = parse_field(field)?;
    // Python looks the field up first, then formats a nested spec.
    let value = lookup(&field[name], data)?;
    let spec = &field[spec];
    if spec.contains('{') {
        let mut nested = String::new();
        format_depth(spec, data, depth - 1, &mut nested)?;
        return emit_value(&value, conversion, &nested, out);
    }
    emit_value(&value, conversion, spec, out)
}

/// Splits a replacement field's text into its name, conversion (`!x`) and spec (after `:`),
/// as byte ranges (a `[...]` in the name may hold `!` or `:`).
fn parse_field(field: &str) -> std::result::Result<(std::ops::Range<usize>, Option<char>, std::ops::Range<usize>), FormatError> {
    let b = field.as_bytes();
    let mut k = 0;
    while k < b.len() && b[k] != b'!' && b[k] != b':' {
        if b[k] == b'[' {
            while k < b.len() && b[k] != b']' {
                k += 1;
            }
            if k >= b.len() {
                break;
            }
        }
        k += 1;
    }
    let name = 0..k.min(b.len());
    let mut conversion = None;
    let mut spec = b.len()..b.len();
    if k < b.len() {
        if b[k] == b'!' {
            let rest = &field[k + 1..];
            let c = rest
                .chars()
                .next()
                .ok_or(FormatError::Other("end of string while looking for conversion specifier".into()))?;
            conversion = Some(c);
            let after = k + 1 + c.len_utf8();
            if after < b.len() {
                if b[after] != b':' {
                    return other("expected ':' after conversion specifier");
                }
                spec = after + 1..b.len();
            }
        } else {
            spec = k + 1..b.len();
        }
    }
    Ok((name, conversion, spec))
}

/// Converts a field's value and appends it formatted with `spec` (which holds no nested
/// fields any more).
fn emit_value(value: &Value, conversion: Option<char>, spec: &str, out: &mut String) -> std::result::Result<(), FormatError> {
    let converted;
    let v: &Value = match conversion {
        None => value,
        Some('s') => {
            converted = Value::String(py_str(value).into());
            &converted
        }
        Some('r') => {
            converted = Value::String(repr(value).into());
            &converted
        }
        Some('a') => {
            converted = Value::String(ascii_escape(&repr(value)).into());
            &converted
        }
        Some(c) => return other(format!("Unknown conversion specifier {c}")),
    };
    if spec.is_empty() {
        match v {
            Value::String(s) => out.push_str(s),
            other_v => out.push_str(&py_str(other_v)),
        }
        return Ok(());
    }
    out.push_str(&format_value(v, spec)?);
    Ok(())
}

fn ascii_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        let n = c as u32;
        if n < 128 {
            out.push(c);
        } else if n < 0x100 {
            out.push_str(&format!("\\x{n:02x}"));
        } else if n < 0x10000 {
            out.push_str(&format!("\\u{n:04x}"));
        } else {
            out.push_str(&format!("\\U{n:08x}"));
        }
    }
    out
}

fn lookup<'a, A: FormatArgs + ?Sized>(name: &str, data: &'a A) -> std::result::Result<Cow<'a, Value>, FormatError> {
    let first_end = name.bytes().position(|c| c == b'.' || c == b'[').unwrap_or(name.len());
    let first = &name[..first_end];
    if first.is_empty() || first.bytes().all(|c| c.is_ascii_digit()) {
        return other("Replacement index 0 out of range for positional args tuple");
    }
    let mut cur = Cow::Borrowed(data.arg(first).ok_or_else(|| FormatError::Key(first.to_string()))?);
    let mut rest = &name[first_end..];
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            return other(format!("attribute access .{} is not supported", &r[..end]));
        }
        let r = rest.strip_prefix('[').ok_or(FormatError::Other("Only '.' or '[' may follow ']' in format field specifier".into()))?;
        let end = r.find(']').ok_or(FormatError::Other("Missing ']' in format string".into()))?;
        let key = &r[..end];
        if key.is_empty() {
            return other("Empty attribute in format string");
        }
        cur = match cur {
            Cow::Borrowed(v) => get_item(v, key)?,
            Cow::Owned(v) => Cow::Owned(get_item(&v, key)?.into_owned()),
        };
        rest = &r[end + 1..];
    }
    Ok(cur)
}

fn get_item<'a>(v: &'a Value, key: &str) -> std::result::Result<Cow<'a, Value>, FormatError> {
    let idx: Option<usize> = if key.bytes().all(|c| c.is_ascii_digit()) { key.parse().ok() } else { None };
    match (v, idx) {
        (Value::Object(m), _) => {
            m.get(key).filter(|_| idx.is_none()).map(Cow::Borrowed).ok_or_else(|| FormatError::Key(key.to_string()))
        }
        (Value::Array(a), Some(i)) => a.get(i).map(Cow::Borrowed).ok_or(FormatError::Other("list index out of range".into())),
        (Value::String(s), Some(i)) => s
            .chars()
            .nth(i)
            .map(|c| Cow::Owned(Value::from(c)))
            .ok_or(FormatError::Other("string index out of range".into())),
        (Value::Array(_), None) => other("list indices must be integers or slices, not str"),
        (Value::String(_), None) => other("string indices must be integers, not 'str'"),
        (other_v, _) => other(format!("'{}' object is not subscriptable", crate::py::repr::type_name(other_v))),
    }
}

/// Python's `format(value, spec)` for JSON-like values: strings, numbers and bools through
/// [`crate::py::format_spec`]; `null`, lists and dicts only with an empty spec (their `str`).
fn format_value(v: &Value, spec: &str) -> std::result::Result<String, FormatError> {
    use crate::py::format_spec::{format_spec, Formattable};
    if spec.is_empty() {
        return Ok(py_str(v));
    }
    let f = match v {
        Value::String(t) => Formattable::Str(t),
        Value::Bool(b) => Formattable::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Formattable::Int(i as i128),
            (None, Some(u)) => Formattable::Int(u as i128),
            _ => Formattable::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        other_v => return other(format!("unsupported format string passed to {}.__format__", crate::py::repr::type_name(other_v))),
    };
    format_spec(f, spec).map_err(FormatError::Other)
}

/// Python's `str.title()`: the first cased character of each run of cased characters is
/// upper-cased, the rest lower-cased.
pub fn py_title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut prev_cased = false;
    for c in s.chars() {
        let cased = c.is_uppercase() || c.is_lowercase();
        if cased {
            if prev_cased {
                out.extend(c.to_lowercase());
            } else {
                out.extend(title_case(c));
            }
        } else {
            out.push(c);
        }
        prev_cased = cased;
    }
    out
}

fn title_case(c: char) -> Vec<char> {
    // Unicode titlecase digraphs differ from their uppercase forms.
    match c {
        'Ǆ' | 'ǅ' | 'ǆ' => vec!['ǅ'],
        'Ǉ' | 'ǈ' | 'ǉ' => vec!['ǈ'],
        'Ǌ' | 'ǋ' | 'ǌ' => vec!['ǋ'],
        'Ǳ' | 'ǲ' | 'ǳ' => vec!['ǲ'],
        _ => c.to_uppercase().collect(),
    }
}

/// Python truthiness-free equality used by `list.index` / `in`: numbers compare by value
/// (`1 == 1.0 == True`), everything else structurally.
pub fn py_eq(a: &Value, b: &Value) -> bool {
    fn num(v: &Value) -> Option<f64> {
        match v {
            Value::Bool(b) => Some(*b as i64 as f64),
            Value::Number(n) => n.as_f64(),
            _ => None,
        }
    }
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| py_eq(v, w)))
        }
        _ => match (num(a), num(b)) {
            (Some(p), Some(q)) => {
                if let (Some(i), Some(j)) = (as_int(a), as_int(b)) {
                    i == j
                } else {
                    p == q
                }
            }
            _ => a == b,
        },
    }
}

/// The value as a Python int (`bool` included), if it is one.
pub fn as_int(v: &Value) -> Option<i128> {
    match v {
        Value::Bool(b) => Some(*b as i128),
        Value::Number(n) => n.as_i64().map(|i| i as i128).or_else(|| n.as_u64().map(|u| u as i128)),
        _ => None,
    }
}

/// Python `seq[i]` with negative indices; `None` when out of range.
pub fn py_index<T>(seq: &[T], i: i128) -> Option<&T> {
    let n = seq.len() as i128;
    let j = if i < 0 { i + n } else { i };
    if j < 0 || j >= n {
        None
    } else {
        seq.get(j as usize)
    }
}

/// Reads a required field from a field map, with Unitxt-like wording on error.
pub fn get_field<'a>(data: &'a Fields, name: &str, what: &str) -> Result<&'a Value> {
    data.get(name).ok_or_else(|| {
        Error::not_found(format!(
            "{what} {name:?} is missing; available fields are [{}]",
            data.keys().cloned().collect::<Vec<_>>().join(", ")
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    fn d(v: Value) -> Fields {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn plain_pieces_of_format_strings() {
        use PlainPiece::{Field, Text};
        let t = |s: &str| Text(s.to_string());
        let f = |s: &str| Field(s.to_string());
        assert_eq!(plain_pieces("{a}x{{y}}\\N{b}{c}"), Some(vec![f("a"), t("x{y}\\N"), f("b"), f("c")]));
        assert_eq!(plain_pieces(""), Some(vec![]));
        assert_eq!(plain_pieces("no fields"), Some(vec![t("no fields")]));
        // A conversion, a spec, an index, an attribute, a position, malformed braces.
        for s in ["{a!r}", "{a:>3}", "{a[0]}", "{a.b}", "{0}", "{}", "a}b", "{a", "{a:{b}}"] {
            assert_eq!(plain_pieces(s), None, "{s}");
        }
    }

    /// A format string whose field texts repeat gives its memoized text, which follows any
    /// change of a field; one whose fields keep changing stops being memoized after the trial;
    /// one with a conversion or a spec is never memoized.
    #[test]
    fn memoized_texts_follow_their_fields() {
        let fmt = "Classify the {kind} into {classes}.";
        let args =
            |kind: &str, classes: &str| d(json!({"kind": kind, "classes": classes, "other": 1}));
        let a = args("sentiment", "negative, positive");
        for _ in 0..2 * Memo::TRIAL {
            assert_eq!(
                py_format(fmt, &a).unwrap(),
                "Classify the sentiment into negative, positive."
            );
        }
        let c = compiled(fmt).unwrap();
        assert!(c.memo.on.get());
        assert_eq!(c.memo.repeats.get(), Memo::TRIAL - 1);
        assert_eq!(
            py_format(fmt, &args("topic", "negative, positive")).unwrap(),
            "Classify the topic into negative, positive."
        );
        assert_eq!(
            py_format(fmt, &args("topic", "a, b")).unwrap(),
            "Classify the topic into a, b."
        );
        assert_eq!(
            py_format(fmt, &a).unwrap(),
            "Classify the sentiment into negative, positive."
        );
        // A field that is not a string, or missing: the full path, with its text or error.
        assert_eq!(
            py_format(fmt, &d(json!({"kind": 3, "classes": "x"}))).unwrap(),
            "Classify the 3 into x."
        );
        assert_eq!(
            py_format(fmt, &d(json!({"kind": "k"}))),
            Err(FormatError::Key("classes".into()))
        );
        assert_eq!(
            py_format(fmt, &a).unwrap(),
            "Classify the sentiment into negative, positive."
        );

        let varying = "{kind}: {text}";
        for i in 0..2 * Memo::TRIAL {
            let text = format!("sentence number {i}");
            assert_eq!(
                py_format(varying, &d(json!({"kind": "k", "text": text}))).unwrap(),
                format!("k: {text}")
            );
        }
        let v = compiled(varying).unwrap();
        assert!(!v.memo.on.get());
        assert!(v.memo.last.borrow().is_none());

        for never in ["{kind!r}", "{kind:>12}", "{0}", "{kind.x}", "no fields"] {
            assert!(!compiled(never).unwrap().memo.on.get(), "{never}");
        }
    }

    /// Texts asked for as `Str`s: a text recalled past the trial is kept for the process, at
    /// most [`Memo::KEPT_MAX`] per string, and every text stays right; one `{name}` gives its
    /// argument's text (or `str()` of another value, or the missing key's error).
    #[test]
    fn texts_as_str_are_kept_past_the_trial_and_bounded() {
        let fmt = "Pick one of {classes} for the {kind}.";
        let args = |classes: &str| d(json!({"kind": "review", "classes": classes}));
        for _ in 0..Memo::TRIAL + 2 {
            assert_eq!(py_format_str(fmt, &args("a, b")).unwrap(), "Pick one of a, b for the review.");
        }
        let c = compiled(fmt).unwrap();
        assert_eq!(c.memo.kept.get(), 1);
        assert!(c.memo.last.borrow().as_ref().is_some_and(|(_, _, kept)| *kept));
        for i in 0..Memo::KEPT_MAX as usize + 4 {
            let classes = format!("c{i}, d{i}");
            for _ in 0..3 {
                assert_eq!(py_format_str(fmt, &args(&classes)).unwrap(), format!("Pick one of {classes} for the review."));
                assert_eq!(py_format(fmt, &args(&classes)).unwrap(), format!("Pick one of {classes} for the review."));
            }
        }
        assert!(c.memo.on.get());
        assert_eq!(c.memo.kept.get(), Memo::KEPT_MAX);
        assert_eq!(py_format_str("{label}", &d(json!({"label": "negative"}))).unwrap(), "negative");
        assert_eq!(py_format_str("{label}", &d(json!({"label": 3}))).unwrap(), "3");
        assert_eq!(py_format_str("{label}", &d(json!({}))), Err(FormatError::Key("label".into())));
    }

    // Expected strings obtained by running the same `str.format` calls in CPython 3.11.
    #[test]
    fn format_basics() {
        let data = d(json!({"a": "xyz", "b": "q", "w": 4, "m": {"x:y": "1"}, "l": ["p", "q"]}));
        assert_eq!(py_format("{a[0]!r:>5}|{b:{w}}|", &data).unwrap(), "  'x'|q   |");
        assert_eq!(py_format("{{{a}}} {m[x:y]} {l[1]}", &data).unwrap(), "{xyz} 1 q");
        assert_eq!(py_format("{a:^7}|{a:.2}|{w:03}|{w:+}", &data).unwrap(), "  xyz  |xy|004|+4");
        assert_eq!(py_format("[{b:05}][{w:*<4}][{w:,}]", &data).unwrap(), "[q0000][4***][4]");
        assert_eq!(py_format("{nope}", &data), Err(FormatError::Key("nope".into())));
        assert!(matches!(py_format("{}", &data), Err(FormatError::Other(_))));
        assert!(matches!(py_format("a } b", &data), Err(FormatError::Other(_))));
        assert!(matches!(py_format("{a", &data), Err(FormatError::Other(_))));
    }

    /// Specs go through the shared mini-language ([`crate::py::format_spec`]): general float
    /// format, grouped zero padding, bools as integers, explicit alignment with the `0` flag.
    #[test]
    fn format_specs_follow_cpython() {
        let data = d(json!({"p": 0.0001234, "n": 1234, "t": true, "s": "ab"}));
        // CPython 3.11: '{p:.3g}|{n:010,}|{t:>3}|{n:<06}|{n:_x}'.format(**data)
        assert_eq!(py_format("{p:.3g}|{n:010,}|{t:>3}|{n:<06}|{n:_x}", &data).unwrap(), "0.000123|00,001,234|  1|123400|4d2");
        assert!(matches!(py_format("{s:=5}", &data), Err(FormatError::Other(m)) if m.contains("'=' alignment")));
    }

    /// The parsed (cached) path and the full parse agree, results and errors, on well-formed
    /// and malformed strings; a string is parsed once and reused.
    #[test]
    fn parsed_formats_match_the_full_parse() {
        let data = d(json!({"a": "xyz", "b": "q", "w": 4, "m": {"x:y": "1", "k": "v"}, "l": ["p", "q"]}));
        let cases = [
            "", "plain", "{a}", "x{a}y{b}z", "{{{a}}}", "}}{{", "{a!r}", "{a!s:>6}", "{w:03}", "{m[x:y]}{l[1]}",
            "{b:{w}}", "{a!x}", "{a!r;}", "{nope}", "{a", "a}", "{}", "{0}", "{a[}", "{l[5]}", "{m.k}", "{w:q}",
            "{\u{e9}}", "é{a}ü",
        ];
        for f in cases {
            let mut slow = String::new();
            let slow = format_depth(f, &data, 2, &mut slow).map(|_| slow);
            assert_eq!(py_format(f, &data), slow, "format {f:?}");
            assert_eq!(py_format(f, &data), slow, "format {f:?}, cached");
        }
        assert!(compiled("x{a}y").is_some() && compiled("{b:{w}}").is_none() && compiled("a}").is_none());
    }

    #[test]
    fn title() {
        // "they're bill's o'neil 3rd ǆx".title() in CPython 3.11
        assert_eq!(py_title("they're bill's o'neil 3rd ǆx"), "They'Re Bill'S O'Neil 3Rd ǅx");
        assert_eq!(py_title("HELLO wORLD"), "Hello World");
    }

    #[test]
    fn missing_field_error_names_fields() {
        let data = d(json!({"question": "q"}));
        let e = apply_formatting("InputOutputTemplate", &data, "input field", Some("{text}"), "input_format")
            .unwrap_err()
            .to_string();
        assert!(e.contains("[question]") && e.contains("input_format"), "{e}");
        assert!(apply_formatting("X", &data, "reference field", None, "output_format").is_err());
    }
}
