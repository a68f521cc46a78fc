//! A column's Arrow type, inferred from the values of the first chunk.
//!
//! Every value gets a [`Kind`]; a column's kind is the merge of its values' kinds. Ints and
//! floats merge to float; lists merge their items; maps become an Arrow map when every key
//! is an int or every key a string and the values are of one kind, else a struct when the
//! keys are strings and each key's values are of one kind (fields sorted by name). Anything
//! else is [`Kind::Mixed`], which has no column type.

use aerospike::Value;
use arrow_schema::{DataType, Field, Fields};

/// More distinct map keys than this in a column: a map, never a struct.
const MAX_STRUCT_FIELDS: usize = 256;

/// What the values seen so far have in common.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// No value yet (absent, or only empty lists / maps).
    Empty,
    Bool,
    Int,
    Float,
    Str,
    Bytes,
    List(Box<Kind>),
    Map(Box<MapKind>),
    /// Two kinds that share no column type.
    Mixed(&'static str, &'static str),
}

/// Maps seen so far: their keys, their values, and per string key its values.
#[derive(Clone, Debug, PartialEq)]
pub struct MapKind {
    keys: Kind,
    values: Kind,
    /// Per string key, in order of first appearance; `None` once a key is not a string or
    /// there are too many of them.
    fields: Option<Vec<(String, Kind)>>,
}

impl Kind {
    /// The kind of one value (`Empty` for nil).
    pub fn of(v: &Value) -> Kind {
        match v {
            Value::Nil => Kind::Empty,
            Value::Bool(_) => Kind::Bool,
            Value::Int(_) => Kind::Int,
            Value::Float(_) => Kind::Float,
            Value::String(_) | Value::GeoJson(_) => Kind::Str,
            Value::Blob(_) | Value::Hll(_) => Kind::Bytes,
            Value::List(items) | Value::MultiResult(items) => Kind::List(Box::new(
                items.iter().fold(Kind::Empty, |k, v| k.merge(Kind::of(v))),
            )),
            Value::HashMap(m) => Kind::of_map(m.iter()),
            Value::OrderedMap(m) => Kind::of_map(m.iter()),
            Value::SortedMap(m) => Kind::of_map(m.iter()),
            Value::KeyValueList(kv) => Kind::of_map(kv.iter().map(|(k, v)| (k, v))),
            _ => Kind::Mixed(Kind::name_of(v), Kind::name_of(v)),
        }
    }

    fn of_map<'a>(pairs: impl Iterator<Item = (&'a Value, &'a Value)>) -> Kind {
        let mut m = MapKind {
            keys: Kind::Empty,
            values: Kind::Empty,
            fields: Some(Vec::new()),
        };
        for (k, v) in pairs {
            m.add(k, Kind::of(v));
        }
        Kind::Map(Box::new(m))
    }

    /// A value's type name, for messages.
    pub fn name_of(v: &Value) -> &'static str {
        match v {
            Value::Nil => "nil",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::String(_) => "str",
            Value::GeoJson(_) => "GeoJSON",
            Value::Blob(_) => "bytes",
            Value::Hll(_) => "HLL",
            Value::List(_) | Value::MultiResult(_) => "list",
            Value::HashMap(_)
            | Value::OrderedMap(_)
            | Value::SortedMap(_)
            | Value::KeyValueList(_) => "map",
            Value::Infinity => "INFINITY",
            Value::Wildcard => "WILDCARD",
            _ => "a value of an unknown particle type",
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Kind::Empty => "nil",
            Kind::Bool => "bool",
            Kind::Int => "int",
            Kind::Float => "float",
            Kind::Str => "str",
            Kind::Bytes => "bytes",
            Kind::List(_) => "list",
            Kind::Map(_) => "map",
            Kind::Mixed(a, _) => a,
        }
    }

    /// The kind of a column holding values of both kinds.
    pub fn merge(self, other: Kind) -> Kind {
        match (self, other) {
            (Kind::Empty, k) | (k, Kind::Empty) => k,
            (m @ Kind::Mixed(..), _) | (_, m @ Kind::Mixed(..)) => m,
            (Kind::Int, Kind::Float) | (Kind::Float, Kind::Int) => Kind::Float,
            (Kind::List(a), Kind::List(b)) => Kind::List(Box::new(a.merge(*b))),
            (Kind::Map(mut a), Kind::Map(b)) => {
                a.absorb(*b);
                Kind::Map(a)
            }
            (a, b) if a == b => a,
            (a, b) => Kind::Mixed(a.name(), b.name()),
        }
    }

    /// The kind of the values a column of type `t` (a natural type) holds; a map column's
    /// keys are not known, so it never widens to a struct.
    pub fn of_type(t: &DataType) -> Kind {
        match t {
            DataType::Null => Kind::Empty,
            DataType::Boolean => Kind::Bool,
            DataType::Int64 => Kind::Int,
            DataType::Float64 => Kind::Float,
            DataType::Utf8 => Kind::Str,
            DataType::Binary => Kind::Bytes,
            DataType::List(item) => Kind::List(Box::new(Kind::of_type(item.data_type()))),
            DataType::Map(entries, _) => match entries.data_type() {
                DataType::Struct(kv) if kv.len() == 2 => {
                    let values = Kind::of_type(kv[1].data_type());
                    // only empty maps: no key seen, so it may still become a struct
                    let empty = values == Kind::Empty;
                    Kind::Map(Box::new(MapKind {
                        keys: if empty {
                            Kind::Empty
                        } else {
                            Kind::of_type(kv[0].data_type())
                        },
                        values,
                        fields: empty.then(Vec::new),
                    }))
                }
                other => Kind::Mixed(Kind::type_name(other), Kind::type_name(other)),
            },
            DataType::Struct(fields) => {
                let fields: Vec<(String, Kind)> = fields
                    .iter()
                    .map(|f| (f.name().clone(), Kind::of_type(f.data_type())))
                    .collect();
                let values = fields
                    .iter()
                    .fold(Kind::Empty, |k, (_, v)| k.merge(v.clone()));
                Kind::Map(Box::new(MapKind {
                    keys: Kind::Str,
                    values,
                    fields: Some(fields),
                }))
            }
            other => Kind::Mixed(Kind::type_name(other), Kind::type_name(other)),
        }
    }

    fn type_name(_: &DataType) -> &'static str {
        "a column of another type"
    }

    /// The column type; `Err` says why there is none (`path` names the column).
    pub fn resolve(&self, path: &str) -> Result<DataType, String> {
        Ok(match self {
            Kind::Empty => DataType::Null,
            Kind::Bool => DataType::Boolean,
            Kind::Int => DataType::Int64,
            Kind::Float => DataType::Float64,
            Kind::Str => DataType::Utf8,
            Kind::Bytes => DataType::Binary,
            Kind::List(item) => {
                DataType::List(Field::new("item", item.resolve(&format!("{path}[]"))?, true).into())
            }
            Kind::Map(m) => m.resolve(path)?,
            Kind::Mixed(a, b) if a == b => return Err(format!("{path} holds {a}")),
            Kind::Mixed(a, b) => return Err(format!("{path} holds both {a} and {b} values")),
        })
    }
}

impl MapKind {
    fn add(&mut self, k: &Value, v: Kind) {
        self.keys = std::mem::replace(&mut self.keys, Kind::Empty).merge(Kind::of(k));
        self.values = std::mem::replace(&mut self.values, Kind::Empty).merge(v.clone());
        match (&mut self.fields, k) {
            (Some(fields), Value::String(name)) => Self::add_field(fields, name, v),
            (fields, _) => *fields = None,
        }
        if self
            .fields
            .as_ref()
            .is_some_and(|f| f.len() > MAX_STRUCT_FIELDS)
        {
            self.fields = None;
        }
    }

    fn add_field(fields: &mut Vec<(String, Kind)>, name: &str, v: Kind) {
        match fields.iter_mut().find(|(n, _)| n == name) {
            Some((_, k)) => *k = std::mem::replace(k, Kind::Empty).merge(v),
            None => fields.push((name.to_owned(), v)),
        }
    }

    fn absorb(&mut self, other: MapKind) {
        self.keys = std::mem::replace(&mut self.keys, Kind::Empty).merge(other.keys);
        self.values = std::mem::replace(&mut self.values, Kind::Empty).merge(other.values);
        match (&mut self.fields, other.fields) {
            (Some(mine), Some(theirs)) => {
                for (name, k) in theirs {
                    Self::add_field(mine, &name, k);
                }
                if mine.len() > MAX_STRUCT_FIELDS {
                    self.fields = None;
                }
            }
            (fields, _) => *fields = None,
        }
    }

    fn resolve(&self, path: &str) -> Result<DataType, String> {
        let as_map = match (&self.keys, &self.values) {
            (Kind::Int | Kind::Str | Kind::Empty, values) => values.resolve(&format!("{path}{{}}")),
            (keys, _) => keys.resolve(&format!("{path} key")),
        };
        let err = match as_map {
            Ok(values) => return Ok(map_type(self.keys.resolve(path)?, values)),
            Err(e) => e,
        };
        let Some(fields) = &self.fields else {
            return Err(err);
        };
        let mut fields: Vec<&(String, Kind)> = fields.iter().collect();
        fields.sort_by(|a, b| a.0.cmp(&b.0)); // map keys come in no fixed order
        let fields = fields
            .into_iter()
            .map(|(name, k)| {
                Ok(Field::new(
                    name,
                    k.resolve(&format!("{path}.{name}"))?,
                    true,
                ))
            })
            .collect::<Result<Fields, String>>()?;
        Ok(DataType::Struct(fields))
    }
}

/// The Arrow map type with these key and value types (keys of an empty map: strings).
pub fn map_type(keys: DataType, values: DataType) -> DataType {
    let keys = if keys == DataType::Null {
        DataType::Utf8
    } else {
        keys
    };
    let entries = Fields::from(vec![
        Field::new("key", keys, false),
        Field::new("value", values, true),
    ]);
    DataType::Map(
        Field::new("entries", DataType::Struct(entries), false).into(),
        false,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind_of(values: &[Value]) -> Kind {
        values.iter().fold(Kind::Empty, |k, v| k.merge(Kind::of(v)))
    }

    #[test]
    fn ints_and_floats_make_a_float_column() {
        let k = kind_of(&[Value::Int(1), Value::from(2.5)]);
        assert_eq!(k.resolve("bin 'x'"), Ok(DataType::Float64));
    }

    #[test]
    fn a_str_among_ints_names_the_bin_and_both_types() {
        let k = kind_of(&[Value::Int(1), Value::from("a")]);
        assert_eq!(
            k.resolve("bin 'x'"),
            Err("bin 'x' holds both int and str values".to_owned())
        );
    }

    #[test]
    fn uniform_maps_are_maps_and_records_are_structs() {
        let mut m = std::collections::HashMap::new();
        m.insert(Value::from("a"), Value::Int(1));
        m.insert(Value::from("b"), Value::Int(2));
        let k = kind_of(&[Value::HashMap(m)]);
        assert_eq!(
            k.resolve("bin 'm'"),
            Ok(map_type(DataType::Utf8, DataType::Int64))
        );
        let mut r = std::collections::HashMap::new();
        r.insert(Value::from("name"), Value::from("Ann"));
        r.insert(Value::from("age"), Value::Int(3));
        let DataType::Struct(fields) = kind_of(&[Value::HashMap(r)]).resolve("bin 'r'").unwrap()
        else {
            panic!("not a struct")
        };
        assert_eq!(fields.len(), 2);
    }

    #[test]
    fn mixed_list_items_name_the_item_path() {
        let k = kind_of(&[Value::List(vec![Value::Int(1), Value::from("a")])]);
        assert_eq!(
            k.resolve("bin 'l'"),
            Err("bin 'l'[] holds both int and str values".to_owned())
        );
    }
}
