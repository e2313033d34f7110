//! Words for the `environment` family's findings: the check's own words.

use checkup_model::{Environment, EnvironmentEvidence, EnvironmentFix, Language};

use crate::fix_words::{pick, t, FixText};
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

/// What an `environment` evidence row measures: the check's own title.
pub fn evidence(k: &EnvironmentEvidence, l: Language) -> String {
    match k {
        EnvironmentEvidence::EnvStatus { check } => checks::title(*check, None, l),
    }
}

/// An `environment` fix in words.
pub fn fix(f: &EnvironmentFix, l: Language) -> FixText {
    match (f, l) {
        (EnvironmentFix::Environment { check }, _) => t(
            pick(l, "Fix the environment", "修复环境问题"),
            &checks::fix_for(*check, l),
            None,
            pick(
                l,
                "Removes a slowdown that no code change can fix.",
                "消除任何代码修改都无法解决的减速。",
            ),
        ),
    }
}
