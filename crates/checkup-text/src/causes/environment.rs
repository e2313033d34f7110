//! Words for the `environment` family's findings: the check's own words.

use checkup_model::{Environment, Language};

use crate::{checks, Language::*};

/// An `environment` finding's title: its check's.
pub fn title(c: &Environment, l: Language) -> String {
    match c {
        Environment::Check { check } => checks::text(check, l).title,
    }
}

/// An `environment` finding's summary: what the check saw and what it means.
pub fn summary(c: &Environment, l: Language) -> String {
    match c {
        Environment::Check { check } => {
            let t = checks::text(check, l);
            match l {
                En => format!("{}: {}. {}", t.title, t.value, t.meaning),
                Zh => format!("{}：{}。{}", t.title, t.value, t.meaning),
            }
        }
    }
}
