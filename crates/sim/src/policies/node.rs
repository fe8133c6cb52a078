//! A policy's options as the spec wrote them, kept as a tree of positioned values, and the one
//! deserializer every policy's `Options` is read through, built-in or registered.
//!
//! Why a tree: the registry picks a policy's parser by the name it reads first, so the options
//! that follow must be handed to a parser chosen at run time. Handing serde's own deserializer
//! through a type-erased seam would turn every error raised inside it into text and lose its
//! position; reading the options once into [`PolicyNode`]s (each with the line and column the
//! YAML reader gave it) and deserializing from those keeps `file:line:column` for every
//! option, for built-ins and for policies a program registers alike.

use serde::de::{self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, forward_to_deserialize_any};
use std::cell::RefCell;
use std::fmt;

/// A 1-based line and column in the spec; `(0, 0)` where unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Position {
    pub line: u64,
    pub column: u64,
}

impl Position {
    fn of(location: serde_saphyr::Location) -> Self {
        Self { line: location.line(), column: location.column() }
    }

    fn known(self) -> bool {
        self.line > 0
    }
}

/// One value of a policy's options and where the spec wrote it.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyNode {
    pub value: NodeValue,
    pub at: Position,
}

#[derive(Debug, Clone, PartialEq)]
pub enum NodeValue {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Seq(Vec<PolicyNode>),
    /// Entries in the order written (duplicate keys are the YAML reader's error).
    Map(Vec<(PolicyNode, PolicyNode)>),
}

impl PolicyNode {
    /// An empty mapping: the options of a policy named without any.
    pub fn empty_map(at: Position) -> Self {
        Self { value: NodeValue::Map(Vec::new()), at }
    }

    /// What the value is, in the spec's words.
    fn kind(&self) -> de::Unexpected<'_> {
        match &self.value {
            NodeValue::Null => de::Unexpected::Unit,
            NodeValue::Bool(b) => de::Unexpected::Bool(*b),
            NodeValue::Int(i) => de::Unexpected::Signed(*i),
            NodeValue::UInt(u) => de::Unexpected::Unsigned(*u),
            NodeValue::Float(f) => de::Unexpected::Float(*f),
            NodeValue::Str(s) => de::Unexpected::Str(s),
            NodeValue::Seq(_) => de::Unexpected::Seq,
            NodeValue::Map(_) => de::Unexpected::Map,
        }
    }
}

impl<'de> Deserialize<'de> for PolicyNode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let spanned = serde_saphyr::Spanned::<NodeValue>::deserialize(d)?;
        Ok(PolicyNode { value: spanned.value, at: Position::of(spanned.referenced) })
    }
}

impl<'de> Deserialize<'de> for NodeValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = NodeValue;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a value")
    }

    fn visit_unit<E>(self) -> Result<NodeValue, E> {
        Ok(NodeValue::Null)
    }

    fn visit_none<E>(self) -> Result<NodeValue, E> {
        Ok(NodeValue::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<NodeValue, D::Error> {
        NodeValue::deserialize(d)
    }

    fn visit_bool<E>(self, v: bool) -> Result<NodeValue, E> {
        Ok(NodeValue::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<NodeValue, E> {
        Ok(NodeValue::Int(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<NodeValue, E> {
        Ok(NodeValue::UInt(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<NodeValue, E> {
        Ok(NodeValue::Float(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<NodeValue, E> {
        Ok(NodeValue::Str(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<NodeValue, E> {
        Ok(NodeValue::Str(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<NodeValue, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<PolicyNode>()? {
            items.push(item);
        }
        Ok(NodeValue::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<NodeValue, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = map.next_entry::<PolicyNode, PolicyNode>()? {
            entries.push(entry);
        }
        Ok(NodeValue::Map(entries))
    }
}

/// An error in a policy's options, at the value it concerns.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeError {
    pub at: Position,
    pub message: String,
}

impl NodeError {
    pub fn new(at: Position, message: impl Into<String>) -> Self {
        Self { at, message: message.into() }
    }

    /// The position of `node` unless the error already has one (raised deeper down).
    fn at(mut self, node: &PolicyNode) -> Self {
        if !self.at.known() {
            self.at = node.at;
        }
        self
    }
}

impl fmt::Display for NodeError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for NodeError {}

impl de::Error for NodeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Self::new(Position::default(), msg.to_string())
    }

    fn invalid_type(unexpected: de::Unexpected, expected: &dyn de::Expected) -> Self {
        Self::custom(format!("expected {}, found {}", in_words(&expected.to_string()), found(&unexpected)))
    }

    fn invalid_value(unexpected: de::Unexpected, expected: &dyn de::Expected) -> Self {
        Self::custom(format!("expected {}, found {}", in_words(&expected.to_string()), found(&unexpected)))
    }

    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        Self::custom(if expected.is_empty() {
            format!("unknown option `{field}`: this policy takes no options")
        } else {
            format!("unknown option `{field}`, expected one of {}", names(expected))
        })
    }

    fn missing_field(field: &'static str) -> Self {
        Self::custom(format!("option `{field}` is required"))
    }

    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        Self::custom(format!("unknown value `{variant}`, expected one of {}", names(expected)))
    }
}

fn names(list: &[&str]) -> String {
    list.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

/// A value as spec errors quote it.
fn found(unexpected: &de::Unexpected) -> String {
    match unexpected {
        de::Unexpected::Str(s) => format!("`{s}`"),
        de::Unexpected::Signed(i) => format!("`{i}`"),
        de::Unexpected::Unsigned(u) => format!("`{u}`"),
        de::Unexpected::Float(f) => format!("`{f}`"),
        de::Unexpected::Bool(b) => format!("`{b}`"),
        de::Unexpected::Unit => "nothing (null)".into(),
        de::Unexpected::Seq => "a list".into(),
        de::Unexpected::Map => "a mapping".into(),
        other => other.to_string(),
    }
}

/// What a Rust type serde expected means in a spec.
pub fn in_words(expected: &str) -> String {
    let words = match expected.trim() {
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" => "a whole number",
        "u8" | "u16" | "u32" | "u64" | "u128" | "usize" => "a whole number >= 0",
        "f32" | "f64" | "floating point" => "a number",
        "bool" | "a boolean" | "boolean" => "true or false",
        "char" => "a single character",
        "a string" | "string" | "String" => "a text value",
        "nonzero usize" | "a nonzero usize" | "nonzero u64" | "a nonzero u64" | "a nonzero u32" => {
            "a whole number >= 1"
        }
        "a sequence" => "a list",
        "a map" => "a mapping",
        other => {
            return other
                .strip_prefix("struct ")
                .map_or_else(|| other.to_string(), |name| format!("a mapping ({name})"));
        }
    };
    words.to_string()
}

impl<'de> IntoDeserializer<'de, NodeError> for &'de PolicyNode {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

/// Every deserializing call dispatches on what the node holds and pins errors raised for it (by
/// the visitor of the type being read) to its position.
impl<'de> Deserializer<'de> for &'de PolicyNode {
    type Error = NodeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NodeError> {
        let result = match &self.value {
            NodeValue::Null => visitor.visit_unit(),
            NodeValue::Bool(b) => visitor.visit_bool(*b),
            NodeValue::Int(i) => visitor.visit_i64(*i),
            NodeValue::UInt(u) => visitor.visit_u64(*u),
            NodeValue::Float(f) => visitor.visit_f64(*f),
            NodeValue::Str(s) => visitor.visit_borrowed_str(s),
            NodeValue::Seq(items) => visitor.visit_seq(Items { items: items.iter() }),
            NodeValue::Map(entries) => visitor.visit_map(Entries { entries: entries.iter(), value: None }),
        };
        result.map_err(|e| e.at(self))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NodeError> {
        match self.value {
            NodeValue::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
        .map_err(|e| e.at(self))
    }

    /// YAML scalars are text: a number or a boolean where text is expected reads as written.
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NodeError> {
        let text = match &self.value {
            NodeValue::Bool(b) => b.to_string(),
            NodeValue::Int(i) => i.to_string(),
            NodeValue::UInt(u) => u.to_string(),
            NodeValue::Float(f) => f.to_string(),
            _ => return self.deserialize_any(visitor),
        };
        visitor.visit_string(text).map_err(|e: NodeError| e.at(self))
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NodeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &str, visitor: V) -> Result<V::Value, NodeError> {
        visitor.visit_newtype_struct(self).map_err(|e| e.at(self))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, NodeError> {
        let result = match &self.value {
            NodeValue::Str(_) => visitor.visit_enum(Variant { name: self, value: None }),
            NodeValue::Map(entries) if entries.len() == 1 => {
                let (name, value) = &entries[0];
                visitor.visit_enum(Variant { name, value: Some(value) })
            }
            _ => Err(de::Error::invalid_type(self.kind(), &"a name, or a mapping from a name to its options")),
        };
        result.map_err(|e| e.at(self))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NodeError> {
        visitor.visit_unit()
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char bytes byte_buf unit unit_struct seq
        tuple tuple_struct map struct identifier
    }
}

struct Items<'de> {
    items: std::slice::Iter<'de, PolicyNode>,
}

impl<'de> SeqAccess<'de> for Items<'de> {
    type Error = NodeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, NodeError> {
        match self.items.next() {
            Some(item) => seed.deserialize(item).map(Some).map_err(|e| e.at(item)),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct Entries<'de> {
    entries: std::slice::Iter<'de, (PolicyNode, PolicyNode)>,
    /// The value of the key last read.
    value: Option<&'de PolicyNode>,
}

impl<'de> MapAccess<'de> for Entries<'de> {
    type Error = NodeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, NodeError> {
        match self.entries.next() {
            Some((key, value)) => {
                self.value = Some(value);
                seed.deserialize(key).map(Some).map_err(|e| e.at(key))
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, NodeError> {
        let value = self.value.take().ok_or_else(|| de::Error::custom("a value was read before its key"))?;
        seed.deserialize(value).map_err(|e| e.at(value))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// The options of a variant named without any.
static EMPTY_MAP: PolicyNode = PolicyNode { value: NodeValue::Map(Vec::new()), at: Position { line: 0, column: 0 } };

struct Variant<'de> {
    name: &'de PolicyNode,
    value: Option<&'de PolicyNode>,
}

impl<'de> de::EnumAccess<'de> for Variant<'de> {
    type Error = NodeError;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), NodeError> {
        let name = seed.deserialize(self.name).map_err(|e| e.at(self.name))?;
        Ok((name, self))
    }
}

impl<'de> de::VariantAccess<'de> for Variant<'de> {
    type Error = NodeError;

    fn unit_variant(self) -> Result<(), NodeError> {
        match self.value {
            None => Ok(()),
            Some(value) if value.value == NodeValue::Null => Ok(()),
            Some(value) => Err(NodeError::new(value.at, "this value takes no options")),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, NodeError> {
        match self.value {
            Some(value) => seed.deserialize(value).map_err(|e| e.at(value)),
            None => seed.deserialize(&EMPTY_MAP).map_err(|e| e.at(self.name)),
        }
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, NodeError> {
        match self.value {
            Some(value) => value.deserialize_any(visitor),
            None => Err(NodeError::new(self.name.at, "expected a list after the name")),
        }
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, NodeError> {
        match self.value {
            Some(value) => value.deserialize_any(visitor),
            None => EMPTY_MAP.deserialize_any(visitor).map_err(|e| e.at(self.name)),
        }
    }
}

thread_local! {
    /// The last policy error raised on this thread while the YAML reader was reading a spec
    /// (see [`record`]).
    static LOCATED: RefCell<Option<NodeError>> = const { RefCell::new(None) };
}

/// Keeps `error`, with its position, for [`take_recorded`]: the YAML reader turns an error
/// raised inside one of its values into bare text, so its position travels beside it.
pub fn record(error: &NodeError) {
    LOCATED.with(|slot| *slot.borrow_mut() = Some(error.clone()));
}

/// The policy error recorded on this thread since the last call, if any.
pub fn take_recorded() -> Option<NodeError> {
    LOCATED.with(|slot| slot.borrow_mut().take())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Options {
        #[serde(default)]
        weight: Option<f64>,
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        mode: Option<Mode>,
        #[serde(default)]
        gpus: Vec<u32>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "kebab-case")]
    enum Mode {
        Fast,
        Slow { factor: u32 },
    }

    fn node(yaml: &str) -> PolicyNode {
        serde_saphyr::from_str(yaml).unwrap()
    }

    fn read(yaml: &str) -> Result<Options, NodeError> {
        Options::deserialize(&node(yaml))
    }

    #[test]
    fn options_read_through_the_tree_as_serde_would_read_them() {
        let options = read("{weight: 2, name: 12, mode: fast, gpus: [1, 2]}").unwrap();
        assert_eq!(
            options,
            Options { weight: Some(2.0), name: Some("12".into()), mode: Some(Mode::Fast), gpus: vec![1, 2] }
        );
        let options = read("mode: {slow: {factor: 3}}\n").unwrap();
        assert_eq!(options.mode, Some(Mode::Slow { factor: 3 }));
        assert_eq!(read("{}").unwrap().weight, None);
    }

    #[test]
    fn errors_point_at_the_value_in_the_spec_words() {
        let error = read("name: x\nweight: heavy\n").unwrap_err();
        assert_eq!((error.at.line, error.at.column), (2, 9), "{error:?}");
        assert_eq!(error.message, "expected a number, found `heavy`");
        let error = read("gpus: [1, -2]\n").unwrap_err();
        assert_eq!((error.at.line, error.at.column), (1, 11), "{error:?}");
        assert!(error.message.contains("found `-2`"), "{error:?}");
        let error = read("{weigth: 1}").unwrap_err();
        assert_eq!((error.at.line, error.at.column), (1, 2), "{error:?}");
        assert!(error.message.starts_with("unknown option `weigth`, expected one of `weight`"), "{error:?}");
        let error = read("mode: quick\n").unwrap_err();
        assert_eq!((error.at.line, error.at.column), (1, 7), "{error:?}");
        assert_eq!(error.message, "unknown value `quick`, expected one of `fast`, `slow`");
    }
}
