//! One raw trace event as serde reads it, borrowing its strings from the buffer.

use std::borrow::Cow;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

#[derive(Deserialize)]
pub(super) struct RawEvent<'a> {
    #[serde(borrow, default)]
    pub(super) ph: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) cat: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) name: Option<Cow<'a, str>>,
    #[serde(default)]
    pub(super) ts: Option<f64>,
    #[serde(default)]
    pub(super) dur: Option<f64>,
    #[serde(default)]
    pub(super) args: Option<RawArgs>,
}

#[derive(Deserialize, Default)]
pub(super) struct RawArgs {
    #[serde(default, deserialize_with = "lenient_i64")]
    pub(super) correlation: Option<i64>,
    #[serde(default, deserialize_with = "lenient_i64")]
    pub(super) bytes: Option<i64>,
    #[serde(default, rename = "External id", deserialize_with = "lenient_i64")]
    pub(super) external: Option<i64>,
}

/// Kineto writes ids as numbers, some tools as strings; either is accepted.
pub(super) fn lenient_i64<'de, D: Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<i64>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Option<i64>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an integer")
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Self::Value, E> {
            Ok(Some(v))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Self::Value, E> {
            Ok(i64::try_from(v).ok())
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Self::Value, E> {
            Ok(Some(v as i64))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Self::Value, E> {
            Ok(v.trim().parse().ok())
        }
        fn visit_unit<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
            Ok(None)
        }
    }
    d.deserialize_any(V)
}
