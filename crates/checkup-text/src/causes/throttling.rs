//! Words for the `throttling` family's findings: each cause's title and summary.

use checkup_model::{Language, Throttling};

use crate::{pct, Language::*};

/// A `throttling` finding's title.
pub fn title(c: &Throttling, l: Language) -> String {
    let (en, zh) = match c {
        Throttling::Power { .. } | Throttling::Thermal { .. } => {
            ("GPU clocks are held down", "GPU 时钟被压低")
        }
    };
    match l {
        En => en.into(),
        Zh => zh.into(),
    }
}

/// A `throttling` finding's summary: what was measured, in a sentence or two.
pub fn summary(c: &Throttling, l: Language) -> String {
    match (c, l) {
        (
            Throttling::Power {
                clock_ratio,
                reasons,
            }
            | Throttling::Thermal {
                clock_ratio,
                reasons,
            },
            En,
        ) => format!(
            "The SM clock ran at {}% of its maximum while busy{}.",
            pct(*clock_ratio),
            if reasons.is_empty() {
                String::new()
            } else {
                format!(" ({})", reasons.join(", "))
            }
        ),
        (
            Throttling::Power {
                clock_ratio,
                reasons,
            }
            | Throttling::Thermal {
                clock_ratio,
                reasons,
            },
            Zh,
        ) => format!(
            "忙碌时 SM 时钟只有最大值的 {}%{}。",
            pct(*clock_ratio),
            if reasons.is_empty() {
                String::new()
            } else {
                format!("（{}）", reasons.join("，"))
            }
        ),
    }
}
