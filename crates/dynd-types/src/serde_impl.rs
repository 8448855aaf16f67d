//! `Serialize`/`Deserialize` for [`Type`] as its datashape text (feature
//! `serde`).
//!
//! ```
//! let t: dynd::ndt::Type = "3 * var * ?float64".parse()?;
//! let json = serde_json::to_string(&t).unwrap();
//! assert_eq!(json, r#""3 * var * ?float64""#);
//! assert_eq!(serde_json::from_str::<dynd::ndt::Type>(&json).unwrap(), t);
//! # Ok::<(), dynd::Error>(())
//! ```

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

use crate::Type;

impl Serialize for Type {
    /// The datashape text, as [`Display`](std::fmt::Display) prints it.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Reads a type from its datashape text.
struct TypeText;

impl Visitor<'_> for TypeText {
    type Value = Type;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a datashape type as a string, such as \"3 * var * float64\"")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Type, E> {
        text.parse()
            .map_err(|e| E::custom(format!("invalid datashape {text:?}: {e}")))
    }
}

impl<'de> Deserialize<'de> for Type {
    /// Parses the datashape text; a malformed one is the format's error,
    /// with the parser's message (position and what was expected).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Type, D::Error> {
        deserializer.deserialize_str(TypeText)
    }
}
