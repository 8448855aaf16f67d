//! `Serialize`/`Deserialize` for [`Array`] and [`Value`] (feature
//! `serde`), so arrays go into any self-describing serde format (JSON,
//! CBOR, MessagePack, ...).
//!
//! An array is the map `{"type": "<datashape>", "value": <nested data>}`:
//! lists for dimensions, `null` for NA, `[re, im]` for complex numbers,
//! maps for structs. Floats are floats; a non-finite float is one of the
//! strings `"NaN"`, `"Infinity"`, `"-Infinity"` (as in
//! [`Array::to_json`], and because JSON has no other way to say it), which
//! the array's type reads back as the float.
//!
//! ```
//! use dynd::nd::Array;
//!
//! let a = Array::from_json("[[1.5, NaN], [null]]", Some(&"2 * var * ?float64".parse()?))?;
//! let json = serde_json::to_string(&a).unwrap();
//! assert_eq!(json, r#"{"type":"2 * var * ?float64","value":[[1.5,"NaN"],[null]]}"#);
//! let back: Array = serde_json::from_str(&json).unwrap();
//! assert_eq!((back.ty(), back.to_string()), (a.ty(), a.to_string()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, SerializeStruct, Serializer};

use dynd_types::Type;

use crate::array::Array;
use crate::value::Value;

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            // The narrowest integer form that holds the value: every
            // format has 64-bit integers, fewer have 128-bit ones.
            Value::Int(i) => match (i64::try_from(*i), u64::try_from(*i)) {
                (Ok(i), _) => serializer.serialize_i64(i),
                (_, Ok(u)) => serializer.serialize_u64(u),
                _ => serializer.serialize_i128(*i),
            },
            Value::UInt(u) => match u64::try_from(*u) {
                Ok(u) => serializer.serialize_u64(u),
                Err(_) => serializer.serialize_u128(*u),
            },
            Value::Float(x) if x.is_nan() => serializer.serialize_str("NaN"),
            Value::Float(x) if x.is_infinite() => {
                serializer.serialize_str(if *x > 0.0 { "Infinity" } else { "-Infinity" })
            }
            Value::Float(x) => serializer.serialize_f64(*x),
            Value::Str(s) => serializer.serialize_str(s),
            Value::List(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Value::Object(fields) => {
                let mut map = serializer.serialize_map(Some(fields.len()))?;
                for (k, v) in fields {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

/// Reads any self-describing value into a [`Value`].
struct AnyValue;

impl<'de> Visitor<'de> for AnyValue {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("nested data: null, a bool, a number, a string, a list or a map")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E: de::Error>(self, i: i64) -> Result<Value, E> {
        Ok(Value::Int(i.into()))
    }

    fn visit_u64<E: de::Error>(self, u: u64) -> Result<Value, E> {
        Ok(Value::Int(u.into()))
    }

    fn visit_i128<E: de::Error>(self, i: i128) -> Result<Value, E> {
        Ok(Value::Int(i))
    }

    fn visit_u128<E: de::Error>(self, u: u128) -> Result<Value, E> {
        Ok(i128::try_from(u).map_or(Value::UInt(u), Value::Int))
    }

    fn visit_f64<E: de::Error>(self, x: f64) -> Result<Value, E> {
        Ok(Value::Float(x))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Value, E> {
        Ok(Value::Str(s.to_owned()))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Value, E> {
        Ok(Value::Str(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::List(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut fields = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Value>()? {
            fields.push((k, v));
        }
        Ok(Value::Object(fields))
    }
}

impl<'de> Deserialize<'de> for Value {
    /// Needs a self-describing format (it reads whatever comes).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(AnyValue)
    }
}

impl Serialize for Array {
    /// `{"type": "<datashape>", "value": <nested data>}`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let value = self.try_to_value().map_err(serde::ser::Error::custom)?;
        let mut s = serializer.serialize_struct("Array", 2)?;
        s.serialize_field("type", self.ty())?;
        s.serialize_field("value", &value)?;
        s.end()
    }
}

/// Reads the `{"type", "value"}` map of an array, in either order.
struct ArrayMap;

impl<'de> Visitor<'de> for ArrayMap {
    type Value = Array;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(r#"an array as {"type": "<datashape>", "value": <nested data>}"#)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Array, A::Error> {
        let (mut ty, mut value): (Option<Type>, Option<Value>) = (None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "type" if ty.is_none() => ty = Some(map.next_value()?),
                "value" if value.is_none() => value = Some(map.next_value()?),
                "type" | "value" => return Err(de::Error::duplicate_field("type or value")),
                other => return Err(de::Error::unknown_field(other, &["type", "value"])),
            }
        }
        let ty = ty.ok_or_else(|| de::Error::missing_field("type"))?;
        let value = value.ok_or_else(|| de::Error::missing_field("value"))?;
        Array::from_value(&value, Some(&ty)).map_err(de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for Array {
    /// The `{"type", "value"}` map: the value is checked against the type
    /// as [`Array::from_value`] checks it (a wrong shape or an out of
    /// range value is the format's error, with dynd's message).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Array, D::Error> {
        deserializer.deserialize_struct("Array", &["type", "value"], ArrayMap)
    }
}
