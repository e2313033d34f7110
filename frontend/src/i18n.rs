//! The UI's language: the system's by default, switchable in the app. Words come from
//! `checkup-text`, the one catalogue the report and the CLI use too.

use checkup_model::Language;

pub fn system_language() -> String {
    let nav = js_sys::Reflect::get(&js_sys::global(), &"navigator".into())
        .and_then(|n| js_sys::Reflect::get(&n, &"language".into()))
        .ok()
        .and_then(|l| l.as_string())
        .unwrap_or_default();
    if nav.to_ascii_lowercase().starts_with("zh") {
        "zh".into()
    } else {
        "en".into()
    }
}

/// The language of a UI language code ("en", "zh").
pub fn lang(code: &str) -> Language {
    code.parse().unwrap_or_default()
}

/// The text for `key` in the language `code`.
pub fn tr(code: &str, key: &str) -> String {
    checkup_text::ui::tr(lang(code), key)
}

/// An error from the backend in the language `code`: words, and details apart.
pub fn error_words(code: &str, e: &checkup_model::UiError) -> checkup_text::ui::ErrorWords {
    checkup_text::ui::error_words(lang(code), e)
}

#[cfg(test)]
mod tests {

    /// Every literal key passed to `tr` in the UI's sources.
    fn keys_used() -> Vec<String> {
        let sources = [
            include_str!("lib.rs"),
            include_str!("steps/mod.rs"),
            include_str!("chart.rs"),
            include_str!("fleet.rs"),
            include_str!("steps/next.rs"),
            include_str!("steps/hosts.rs"),
            include_str!("steps/environment.rs"),
            include_str!("steps/sampling.rs"),
            include_str!("steps/profiling.rs"),
            include_str!("steps/diagnosis.rs"),
            include_str!("steps/report.rs"),
            include_str!("steps/rerun.rs"),
        ];
        let mut keys = Vec::new();
        for src in sources {
            for part in src.split("tr(").skip(1) {
                // tr(&l, "key") / tr(&ui.l(), "key")
                if let Some(rest) = part.split_once(", \"").map(|(_, r)| r) {
                    if let Some((key, _)) = rest.split_once("\")") {
                        if !key.contains(' ') {
                            keys.push(key.to_string());
                        }
                    }
                }
            }
        }
        keys.extend(
            [
                // Each step's intro (steps/mod.rs `intro`, called with its keys).
                "intro_environment",
                "intro_environment_next",
                "intro_sampling",
                "intro_sampling_next",
                "intro_profiling",
                "intro_profiling_next",
                "intro_diagnosis",
                "intro_diagnosis_next",
                "intro_report",
                "intro_report_next",
                "environment",
                "sampling",
                "profiling",
                "diagnosis",
                "report",
                "pass",
                "warn",
                "fail",
                "unknown",
                "critical",
                "major",
                "minor",
                "info",
                // The re-run button's line, with a host and without (steps/rerun.rs).
                "rerun_help",
                "rerun_needs_host",
                // Error kinds the backend names (ConnectError::parts, src-tauri/src/lib.rs).
                "err_unreachable",
                "err_auth_refused",
                "err_host_key",
                "err_unsupported_host",
                "err_no_agent_binary",
                "err_agent_did_not_start",
                "err_agent_gone",
                "err_agent_unreachable",
                "err_unauthorized",
                "err_no_host",
                "err_no_fleet",
                // Prometheus errors the app words (src-tauri/src/lib.rs `prometheus_parts`).
                "err_prom_several_hosts",
                "err_prom_unknown_host",
                "err_prom_unreachable",
                "err_prom_no_metrics",
                "err_prom_bad_time",
                "err_prom_empty_range",
                "err_prom_bad_url",
                "err_prom_not_prometheus",
                "err_prom_refused",
                "err_prom_unknown_gpu",
                "err_no_gpu_data",
                "err_stale_diagnosis",
                "err_ssh_failed",
                "err_no_ssh_client",
                "err_protocol",
                "err_file",
                // Why an agent has no GPU readings (checkup_text::ui::gpu_problem_words).
                "gpu_problem_no_driver",
                "gpu_problem_nvml",
                "gpu_problem_no_nvml_build",
                // Why a live phase reconnects (src-tauri/src/live.rs).
                "why_stream_dropped",
                "why_stop_unanswered",
                "why_connection_dropped",
            ]
            .map(String::from),
        );
        keys.extend(checkup_model::LiveStatus::ALL.map(|s| s.key().to_string()));
        keys
    }

    #[test]
    fn every_key_the_ui_uses_has_english_and_chinese() {
        let used = keys_used();
        assert!(used.len() > 50, "{used:?}");
        for key in used {
            let entry = checkup_text::ui::CATALOGUE
                .iter()
                .find(|(k, _, _)| *k == key);
            let (_, en, zh) = entry.unwrap_or_else(|| panic!("`{key}` is not in the catalogue"));
            assert!(!en.is_empty() && !zh.is_empty(), "{key}");
            // Names are written the same in both.
            if !["ssh"].contains(&key.as_str()) {
                assert_ne!(en, zh, "`{key}` is not translated");
            }
        }
    }
}
