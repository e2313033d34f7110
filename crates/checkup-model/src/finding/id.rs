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

/// One family's evidence keys or fixes: the enum, each variant tagged in JSON by `$tag` with
/// its id, spelled once here; `id()` returns it and `IDS` lists them, which the family's
/// `by_family!` enum reads a stored row by.
macro_rules! keyed {
    (
        tag = $tag:literal;
        $(#[$meta:meta])*
        pub enum $name:ident {
            $(
                $(#[$variant_meta:meta])*
                $variant:ident $({ $($fields:tt)* })? => $id:literal,
            )+
        }
    ) => {
        $(#[$meta])*
        #[serde(tag = $tag)]
        pub enum $name {
            $(
                $(#[$variant_meta])*
                #[serde(rename = $id)]
                $variant $({ $($fields)* })?,
            )+
        }

        impl $name {
            /// Every id of this family's, as the JSON tags them.
            pub const IDS: &'static [&'static str] = &[$($id),+];

            /// The id the JSON tags it with.
            pub fn id(&self) -> &'static str {
                match self {
                    $(Self::$variant { .. } => $id,)+
                }
            }
        }
    };
}

/// `EvidenceKey` or `Fix`: one variant per family holding that family's `keyed!` enum. Its
/// JSON is the inner enum's (one flat id, `"fix": "pin_memory"`); a stored one is read by
/// the family whose ids hold its tag, and an unknown id is refused by name.
macro_rules! by_family {
    (
        tag = $tag:literal, what = $what:literal;
        $(#[$meta:meta])*
        pub enum $name:ident {
            $(
                $(#[$variant_meta:meta])*
                $family:ident($inner:ident),
            )+
        }
    ) => {
        $(#[$meta])*
        pub enum $name {
            $(
                $(#[$variant_meta])*
                $family($inner),
            )+
        }

        impl $name {
            /// The id the JSON tags it with.
            pub fn id(&self) -> &'static str {
                match self {
                    $(Self::$family(inner) => inner.id(),)+
                }
            }

            /// Every family's ids, family by family. Ids are unique across families (a
            /// test checks it): a stored one is read by the family that lists it.
            pub fn ids() -> impl Iterator<Item = &'static str> {
                [$($inner::IDS),+].into_iter().flatten().copied()
            }
        }

        $(
            impl From<$inner> for $name {
                fn from(inner: $inner) -> Self {
                    Self::$family(inner)
                }
            }

            impl PartialEq<$inner> for $name {
                fn eq(&self, other: &$inner) -> bool {
                    matches!(self, Self::$family(inner) if inner == other)
                }
            }
        )+

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $(Self::$family(inner) => inner.serialize(s),)+
                }
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                use serde::de::Error;
                let value = serde_json::Value::deserialize(d)?;
                let id = value
                    .get($tag)
                    .and_then(serde_json::Value::as_str)
                    .ok_or_else(|| D::Error::missing_field($tag))?
                    .to_owned();
                let wrong =
                    |e: serde_json::Error| D::Error::custom(format_args!("{} `{id}`: {e}", $what));
                $(
                    if $inner::IDS.contains(&id.as_str()) {
                        return serde_json::from_value(value).map(Self::$family).map_err(wrong);
                    }
                )+
                Err(D::Error::custom(format_args!("unknown {} `{id}`", $what)))
            }
        }
    };
}
