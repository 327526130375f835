//! Owners' expressions: calculations, validations and endings written in CEL (the Common
//! Expression Language, through the maintained `cel` crate), read over a respondent's answers
//! (`q.ID`), the survey's hidden fields (`h.NAME`), its variables (`v.ID`) and scores
//! (`s.ID`, `score`, `correct`). CEL has no loops, no recursion and no side effects; on top
//! of that an expression here is bounded in length, in depth and in comprehension nesting,
//! so evaluating one is bounded in time and memory and never panics.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, LazyLock};

use cel::common::ast::{EntryExpr, Expr, IdedExpr};
use cel::{Context, Env, Program, Value};
use serde::{Deserialize, Serialize};

use super::QuestionId;
use super::answer_value::AnswerValue;
use super::hidden::HiddenValues;

/// Longest expression, in characters.
pub const MAX_SOURCE: usize = 500;
/// Deepest expression tree: the parser's and evaluator's recursion stays far within a
/// thread's stack.
pub const MAX_DEPTH: usize = 32;
/// The first this many characters of a text answer are what an expression reads of it, so
/// no expression can build a large string out of long answers.
pub const MAX_TEXT_READ: usize = 1_000;
/// Longest value a variable stores, as JSON text.
pub const MAX_VALUE_JSON: usize = 2_000;

/// The standard environment (functions, macros), built once.
static ENVIRONMENT: LazyLock<Arc<Env>> = LazyLock::new(|| Arc::new(Env::stdlib()));

/// What is wrong with an expression's text.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ExpressionProblem {
    /// Blank.
    #[error("write an expression")]
    Empty,
    /// Over `MAX_SOURCE`.
    #[error("an expression is at most {MAX_SOURCE} characters")]
    TooLong,
    /// Not CEL.
    #[error("this is not a valid expression: {0}")]
    Syntax(String),
    /// Nested deeper than `MAX_DEPTH`.
    #[error("this expression is nested too deeply (at most {MAX_DEPTH} levels)")]
    TooDeep,
    /// A comprehension (`all`, `exists`, `map`, `filter`) inside another.
    #[error("a list test (all, exists, map, filter) may not hold another one")]
    NestedComprehension,
    /// A name it reads that the survey has not.
    #[error("{0}")]
    UnknownName(String),
}

/// A checked, compiled expression; it serialises as its text.
#[derive(Clone)]
pub struct Expression {
    source: String,
    program: Arc<Program>,
}

impl std::fmt::Debug for Expression {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Expression").field(&self.source).finish()
    }
}

impl PartialEq for Expression {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl Serialize for Expression {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.source)
    }
}

impl<'de> Deserialize<'de> for Expression {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let source = String::deserialize(deserializer)?;
        Expression::parse(&source).map_err(serde::de::Error::custom)
    }
}

impl utoipa::PartialSchema for Expression {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .max_length(Some(MAX_SOURCE))
            .description(Some(
                "A CEL expression over q.ID (answers), h.NAME (hidden fields), v.ID \
                 (variables), s.ID (a question's score), score and correct.",
            ))
            .into()
    }
}

impl utoipa::ToSchema for Expression {}

/// The names an expression reads, by the map they are read from.
#[derive(Debug, Default, PartialEq)]
pub struct Names {
    /// `q.ID` (or `q["ID"]`).
    pub questions: Vec<String>,
    /// `h.NAME`.
    pub hidden: Vec<String>,
    /// `v.ID`.
    pub variables: Vec<String>,
    /// `s.ID`.
    pub scores: Vec<String>,
}

impl Expression {
    /// Checks and compiles `source` (trimmed).
    pub fn parse(source: &str) -> Result<Self, ExpressionProblem> {
        let source = source.trim();
        if source.is_empty() {
            return Err(ExpressionProblem::Empty);
        }
        if source.chars().count() > MAX_SOURCE {
            return Err(ExpressionProblem::TooLong);
        }
        // Brackets are counted before parsing: the parser recurses once per level.
        if bracket_depth(source) > MAX_DEPTH {
            return Err(ExpressionProblem::TooDeep);
        }
        let program = ENVIRONMENT.compile(source).map_err(|errors| {
            let text = errors.to_string();
            let first = text.lines().next().unwrap_or("").trim().to_owned();
            ExpressionProblem::Syntax(first.chars().take(200).collect())
        })?;
        let shape = shape(program.expression(), 0, false)?;
        if shape > MAX_DEPTH {
            return Err(ExpressionProblem::TooDeep);
        }
        Ok(Self {
            source: source.to_owned(),
            program: Arc::new(program),
        })
    }

    /// Its text.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The names it reads from `q`, `h`, `v` and `s`, in order, each once.
    pub fn names(&self) -> Names {
        let mut names = Names::default();
        collect_names(self.program.expression(), &mut names);
        names
    }

    /// Its value over `scope`: `None` when it cannot be computed (an answer it reads is
    /// missing, a division by zero, a type mismatch).
    pub fn value(&self, scope: &Scope) -> Option<Value> {
        let mut context = Context::with_env(Arc::clone(&ENVIRONMENT));
        for (name, map) in [
            ("q", &scope.questions),
            ("h", &scope.hidden),
            ("v", &scope.variables),
            ("s", &scope.scores),
        ] {
            context.add_variable_from_value(name, map.clone());
        }
        context.add_variable_from_value("score", Value::Float(scope.score));
        context.add_variable_from_value("correct", Value::Float(scope.correct));
        self.program.execute(&context).ok()
    }

    /// Whether it is true over `scope` (false when it is anything else or cannot be computed).
    pub fn holds(&self, scope: &Scope) -> bool {
        matches!(self.value(scope), Some(Value::Bool(true)))
    }
}

impl std::fmt::Display for Expression {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.source)
    }
}

/// The deepest nesting of brackets in `source` (outside string literals, roughly: quotes are
/// not tracked, so brackets in strings count too, which only errs on the side of refusing).
fn bracket_depth(source: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for c in source.chars() {
        match c {
            '(' | '[' | '{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// The depth of the tree under `expr`, refusing a comprehension inside another (the one
/// shape whose cost multiplies). The walk stops as soon as the depth is over the bound.
fn shape(expr: &IdedExpr, depth: usize, in_loop: bool) -> Result<usize, ExpressionProblem> {
    if depth > MAX_DEPTH {
        return Err(ExpressionProblem::TooDeep);
    }
    let below = |children: &mut dyn Iterator<Item = &IdedExpr>,
                 in_loop: bool|
     -> Result<usize, ExpressionProblem> {
        let mut deepest = depth;
        for child in children {
            deepest = deepest.max(shape(child, depth + 1, in_loop)?);
        }
        Ok(deepest)
    };
    match &expr.expr {
        Expr::Call(call) => below(
            &mut call.target.iter().map(|t| &**t).chain(call.args.iter()),
            in_loop,
        ),
        Expr::Comprehension(loop_) => {
            if in_loop {
                return Err(ExpressionProblem::NestedComprehension);
            }
            below(
                &mut [
                    &loop_.iter_range,
                    &loop_.accu_init,
                    &loop_.loop_cond,
                    &loop_.loop_step,
                    &loop_.result,
                ]
                .into_iter(),
                true,
            )
        }
        Expr::List(list) => below(&mut list.elements.iter(), in_loop),
        Expr::Map(map) => below(&mut map.entries.iter().flat_map(entry_parts), in_loop),
        Expr::Struct(object) => below(&mut object.entries.iter().flat_map(entry_parts), in_loop),
        Expr::Select(select) => below(&mut std::iter::once(&*select.operand), in_loop),
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => Ok(depth),
    }
}

/// A map or struct entry's key and value expressions.
fn entry_parts(entry: &cel::common::ast::IdedEntryExpr) -> Vec<&IdedExpr> {
    match &entry.expr {
        EntryExpr::MapEntry(entry) => vec![&entry.key, &entry.value],
        EntryExpr::StructField(field) => vec![&field.value],
    }
}

/// Adds the names `expr` reads from the four maps to `names`.
fn collect_names(expr: &IdedExpr, names: &mut Names) {
    let mut note = |map: &str, name: &str| {
        let list = match map {
            "q" => &mut names.questions,
            "h" => &mut names.hidden,
            "v" => &mut names.variables,
            "s" => &mut names.scores,
            _ => return,
        };
        if !list.iter().any(|known| known == name) {
            list.push(name.to_owned());
        }
    };
    match &expr.expr {
        Expr::Select(select) => {
            if let Expr::Ident(map) = &select.operand.expr {
                note(map, &select.field);
            }
            collect_names(&select.operand, names);
        }
        Expr::Call(call) => {
            // `q["1a"]`: an index with a literal key.
            if call.func_name == "_[_]"
                && let [map, key] = &call.args[..]
                && let (
                    Expr::Ident(map),
                    Expr::Literal(cel::common::ast::LiteralValue::String(key)),
                ) = (&map.expr, &key.expr)
            {
                note(map, key);
            }
            for child in call.target.iter().map(|t| &**t).chain(call.args.iter()) {
                collect_names(child, names);
            }
        }
        Expr::Comprehension(loop_) => {
            for child in [
                &loop_.iter_range,
                &loop_.accu_init,
                &loop_.loop_cond,
                &loop_.loop_step,
                &loop_.result,
            ] {
                collect_names(child, names);
            }
        }
        Expr::List(list) => list.elements.iter().for_each(|e| collect_names(e, names)),
        Expr::Map(map) => map
            .entries
            .iter()
            .flat_map(entry_parts)
            .for_each(|e| collect_names(e, names)),
        Expr::Struct(object) => object
            .entries
            .iter()
            .flat_map(entry_parts)
            .for_each(|e| collect_names(e, names)),
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
    }
}

/// What an expression reads: a respondent's answers so far, hidden fields, variables and
/// scores, as CEL values.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    questions: HashMap<String, Value>,
    hidden: HashMap<String, Value>,
    variables: HashMap<String, Value>,
    scores: HashMap<String, Value>,
    score: f64,
    correct: f64,
}

impl Scope {
    /// The scope of these answers and hidden values (no variables or scores yet).
    pub fn new(values: &BTreeMap<QuestionId, AnswerValue>, hidden: &HiddenValues) -> Self {
        Self {
            questions: values
                .iter()
                .map(|(id, value)| (id.to_string(), answer_value(value)))
                .collect(),
            hidden: hidden
                .iter()
                .map(|(name, value)| (name.to_owned(), text(value)))
                .collect(),
            ..Self::default()
        }
    }

    /// Adds a question's score, and counts it in `score`.
    pub fn add_score(&mut self, question: &QuestionId, points: f64) {
        self.scores
            .insert(question.to_string(), Value::Float(points));
        self.score += points;
    }

    /// Counts one question answered correctly.
    pub fn add_correct(&mut self) {
        self.correct += 1.0;
    }

    /// Adds a variable's value (as stored).
    pub fn add_variable(&mut self, id: &str, value: &serde_json::Value) {
        if let Some(value) = from_json(value) {
            self.variables.insert(id.to_owned(), value);
        }
    }
}

/// A text as an expression reads it: its first `MAX_TEXT_READ` characters.
fn text(value: &str) -> Value {
    let cut = value
        .char_indices()
        .nth(MAX_TEXT_READ)
        .map_or(value, |(at, _)| &value[..at]);
    Value::String(Arc::new(cut.to_owned()))
}

fn texts(values: &[String]) -> Value {
    Value::List(Arc::new(values.iter().map(|v| text(v)).collect()))
}

/// An answer as an expression reads it: numbers as doubles, an option as its text, options
/// as a list of texts (with "Other" for another answer written in), a matrix as a map of
/// row to column, a date as `YYYY-MM-DD` (which compares in order), a file as its name.
fn answer_value(value: &AnswerValue) -> Value {
    match value {
        AnswerValue::Text(t) | AnswerValue::Choice(t) | AnswerValue::Date(t) => text(t),
        AnswerValue::Choices(list) | AnswerValue::Ranking(list) => texts(list),
        AnswerValue::Stars(n) | AnswerValue::Point(n) => Value::Float(f64::from(*n)),
        AnswerValue::Number(n) => Value::Float(*n),
        AnswerValue::Matrix(rows) => {
            let map: HashMap<String, Value> = rows
                .iter()
                .map(|(row, column)| (row.clone(), text(column)))
                .collect();
            Value::from(map)
        }
        AnswerValue::File(file) => text(&file.name),
        AnswerValue::Other { picked, .. } => {
            let mut all = picked.clone();
            all.push(super::choice::OTHER.to_owned());
            texts(&all)
        }
    }
}

/// A computed value as stored with a response: JSON, or `None` when it has no JSON form (a
/// number that is not finite, bytes, a function) or is longer than `MAX_VALUE_JSON`.
pub fn to_json(value: &Value) -> Option<serde_json::Value> {
    let json = json_of(value, 0)?;
    (json.to_string().len() <= MAX_VALUE_JSON).then_some(json)
}

fn json_of(value: &Value, depth: usize) -> Option<serde_json::Value> {
    use serde_json::Value as Json;
    if depth > MAX_DEPTH {
        return None;
    }
    Some(match value {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(n) => Json::from(*n),
        Value::UInt(n) => Json::from(*n),
        Value::Float(n) => Json::from(serde_json::Number::from_f64(*n)?),
        Value::String(s) => Json::String(s.to_string()),
        Value::List(list) => Json::Array(
            list.iter()
                .map(|v| json_of(v, depth + 1))
                .collect::<Option<_>>()?,
        ),
        Value::Map(map) => {
            let mut object = serde_json::Map::new();
            for (key, v) in map.map.iter() {
                object.insert(key.to_string(), json_of(v, depth + 1)?);
            }
            Json::Object(object)
        }
        _ => return None,
    })
}

/// A stored value back as an expression reads it (numbers as doubles).
fn from_json(value: &serde_json::Value) -> Option<Value> {
    use serde_json::Value as Json;
    Some(match value {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => Value::Float(n.as_f64()?),
        Json::String(s) => Value::String(Arc::new(s.clone())),
        Json::Array(list) => {
            Value::List(Arc::new(list.iter().map(from_json).collect::<Option<_>>()?))
        }
        Json::Object(map) => {
            let map: HashMap<String, Value> = map
                .iter()
                .map(|(k, v)| Some((k.clone(), from_json(v)?)))
                .collect::<Option<_>>()?;
            Value::from(map)
        }
    })
}

/// A number as the text a recall shows: whole numbers without a fraction.
pub fn shown(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => String::new(),
        serde_json::Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}

#[cfg(test)]
#[path = "expression_tests.rs"]
mod tests;
