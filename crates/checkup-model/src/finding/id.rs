//! The two macros that spell each finding id once: `causes!` declares one family's causes
//! with their ids, `families!` the `Cause` over every family. Serde's tag, `kind()`, the
//! family and the JSON's `id` all come from these declarations.

/// One family's causes, each with its finding id (`"data_loading/cpu_saturated"`): the enum
/// with that id as its serde tag (`kind`), and `kind()` returning it.
macro_rules! causes {
    (
        $(#[$meta:meta])*
        pub enum $family:ident {
            $(
                $(#[$variant_meta:meta])*
                $variant:ident $({ $($fields:tt)* })? => $kind:literal,
            )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(tag = "kind")]
        pub enum $family {
            $(
                $(#[$variant_meta])*
                #[serde(rename = $kind)]
                $variant $({ $($fields)* })?,
            )+
        }

        impl $family {
            /// The cause's kind: its finding id, the JSON's `kind`.
            pub fn kind(&self) -> &'static str {
                match self {
                    $(Self::$variant { .. } => $kind,)+
                }
            }
        }
    };
}

/// `Cause`: one variant per family, each holding that family's enum, with the family it
/// belongs to, its kind, and its serde form (the inner cause's, tagged by its kind).
macro_rules! families {
    (
        $(#[$meta:meta])*
        pub enum Cause {
            $(
                $(#[$variant_meta:meta])*
                $family:ident($inner:ty),
            )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        pub enum Cause {
            $(
                $(#[$variant_meta])*
                $family($inner),
            )+
        }

        impl Cause {
            /// The family the cause belongs to.
            pub fn family(&self) -> Family {
                match self {
                    $(Cause::$family(_) => Family::$family,)+
                }
            }

            /// The cause's kind, as its JSON tags it (`host_sync/allocator`): its finding id,
            /// but for an environment check, whose id adds the check's.
            pub fn kind(&self) -> &'static str {
                match self {
                    $(Cause::$family(c) => c.kind(),)+
                }
            }
        }

        impl serde::Serialize for Cause {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $(Cause::$family(c) => c.serialize(s),)+
                }
            }
        }

        impl<'de> serde::Deserialize<'de> for Cause {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                use serde::de::Error;
                let value = serde_json::Value::deserialize(d)?;
                let kind = value
                    .get("kind")
                    .and_then(serde_json::Value::as_str)
                    .ok_or_else(|| D::Error::missing_field("kind"))?
                    .to_owned();
                let family = Family::of_kind(&kind)
                    .ok_or_else(|| D::Error::custom(format_args!("unknown finding kind `{kind}`")))?;
                let wrong = |e: serde_json::Error| D::Error::custom(format_args!("finding `{kind}`: {e}"));
                match family {
                    $(Family::$family => serde_json::from_value(value).map(Cause::$family).map_err(wrong),)+
                }
            }
        }
    };
}
