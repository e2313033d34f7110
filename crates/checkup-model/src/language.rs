//! The languages every view speaks.

use serde::{Deserialize, Serialize};

/// A language the catalogue words everything in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Language {
    /// English.
    #[default]
    En,
    /// Simplified Chinese.
    Zh,
}

impl Language {
    /// The short code used on command lines and in settings (`en`, `zh`).
    pub fn code(self) -> &'static str {
        match self {
            Language::En => "en",
            Language::Zh => "zh",
        }
    }
}

/// A language name that is not one of ours.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownLanguage(pub String);

impl std::fmt::Display for UnknownLanguage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown language `{}`: use en or zh", self.0)
    }
}

impl std::error::Error for UnknownLanguage {}

impl std::str::FromStr for Language {
    type Err = UnknownLanguage;
    fn from_str(s: &str) -> Result<Self, UnknownLanguage> {
        match s.to_ascii_lowercase().as_str() {
            "en" | "english" => Ok(Language::En),
            "zh" | "zh-cn" | "zh-hans" | "chinese" => Ok(Language::Zh),
            _ => Err(UnknownLanguage(s.to_owned())),
        }
    }
}
