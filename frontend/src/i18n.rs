//! The UI's message catalogue: English and Simplified Chinese, both complete (a test checks
//! every key the UI uses is here). The language follows the system's and can be switched in
//! the app. Texts the engine writes (findings, checks) come localised from the backend.

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

/// (key, English, Simplified Chinese)
const CATALOGUE: &[(&str, &str, &str)] = &[
    ("app_title", "GPU Checkup", "GPU 体检"),
    ("pick", "Pick a checkup on the left, or connect to a GPU host to start one (the demo checkups are real H200 training recordings).", "从左侧选择一次体检，或连接 GPU 主机开始新的体检（内置的演示体检来自真实的 H200 训练记录）。"),
    ("environment", "1 Environment", "1 环境"),
    ("sampling", "2 Live sampling", "2 实时采样"),
    ("profiling", "3 Profiling", "3 性能分析"),
    ("diagnosis", "4 Diagnosis", "4 诊断"),
    ("report", "5 Report", "5 报告"),
    ("history", "Checkups", "体检记录"),
    ("demo", "demo", "演示"),
    ("recording_host", "recording", "记录"),
    ("baseline", "baseline", "基线"),
    ("host", "GPU host", "GPU 主机"),
    ("no_host", "Not connected.", "未连接。"),
    ("no_gpu", "no GPU", "没有 GPU"),
    ("this_computer", "This computer", "本机"),
    ("ssh", "SSH", "SSH"),
    ("forwarded", "Agent already forwarded", "已转发的 agent"),
    ("token", "token", "令牌"),
    ("connect", "Connect", "连接"),
    ("connecting", "Connecting…", "正在连接…"),
    ("new_checkup", "New checkup on this host", "在此主机上新建体检"),
    ("checking", "Checking the environment…", "正在检查环境…"),
    ("open_recording", "Open a recording", "打开记录"),
    ("open", "Open", "打开"),
    ("analysing", "analysing", "正在分析"),
    ("no_checks", "No environment check for this checkup.", "这次体检没有环境检查。"),
    ("check", "check", "检查项"),
    ("value", "value", "值"),
    ("meaning", "what it means", "含义"),
    ("fix", "fix", "修复"),
    ("pass", "pass", "通过"),
    ("warn", "warn", "警告"),
    ("fail", "fail", "失败"),
    ("unknown", "unknown", "未知"),
    ("connect_to_sample", "Connect to a GPU host to sample it live.", "连接 GPU 主机后即可实时采样。"),
    ("seconds", "Seconds", "秒数"),
    ("job", "Job", "任务"),
    ("start_sampling", "Start sampling", "开始采样"),
    ("stop", "Stop", "停止"),
    ("time_left", "left", "剩余"),
    ("samples", "samples", "个样本"),
    ("reconnects", "reconnects, no samples lost", "次重连，样本无丢失"),
    ("no_samples", "No samples yet.", "还没有样本。"),
    ("starting", "starting", "正在启动"),
    ("status_sampling", "sampling", "正在采样"),
    ("reconnecting", "reconnecting", "正在重连"),
    ("why_stream_dropped", "the sample stream dropped", "样本流中断"),
    ("why_stop_unanswered", "the agent did not answer the stop", "agent 未响应停止请求"),
    ("why_connection_dropped", "the connection dropped", "连接中断"),
    ("running", "running", "运行中"),
    ("done", "done", "完成"),
    ("failed", "failed", "失败"),
    ("connect_to_profile", "Connect to a GPU host to profile a training command.", "连接 GPU 主机后即可分析训练命令。"),
    ("command", "Command", "命令"),
    ("cwd", "Folder", "目录"),
    ("skip_steps", "Skip steps", "跳过步数"),
    ("profile_steps", "Profile steps", "分析步数"),
    ("start_profiling", "Profile it", "开始分析"),
    ("steps", "steps", "步"),
    ("no_trace", "No profiler trace in this checkup yet.", "这次体检还没有性能分析数据。"),
    ("no_diagnosis", "This checkup has no diagnosis yet: sample or profile it first.", "这次体检还没有诊断：请先采样或进行性能分析。"),
    ("primary", "Primary bottleneck", "主要瓶颈"),
    ("window", "Measurement window", "测量窗口"),
    ("confidence", "confidence", "置信度"),
    ("of_step_time", "of step time", "的步骤时间"),
    ("evidence", "evidence", "证据"),
    ("source", "source", "来源"),
    ("copy", "Copy", "复制"),
    ("author", "your name", "你的名字"),
    ("note", "note for the review", "评审备注"),
    ("add_note", "Add note", "添加备注"),
    ("critical", "critical", "严重"),
    ("major", "major", "主要"),
    ("minor", "minor", "次要"),
    ("info", "info", "信息"),
    ("export", "Export", "导出"),
    ("preview", "Preview", "预览"),
    ("written", "Written:", "已写入："),
    ("set_baseline", "Make this the project's baseline", "设为项目基线"),
    ("compare", "Compare side by side", "并排对比"),
    ("compare_pick", "another checkup…", "另一次体检…"),
    ("compare_go", "Compare", "对比"),
    ("before", "before", "之前"),
    ("after", "after", "之后"),
    ("change", "change", "变化"),
];

/// The text for `key` in `lang`; a key without an entry (a status from the backend) is
/// shown as it is.
pub fn tr(lang: &str, key: &str) -> String {
    match CATALOGUE.iter().find(|(k, _, _)| *k == key) {
        Some((_, en, zh)) => if lang == "zh" { zh } else { en }.to_string(),
        None => key.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every literal key passed to `tr` in the UI's sources.
    fn keys_used() -> Vec<String> {
        let sources = [
            include_str!("lib.rs"),
            include_str!("steps/mod.rs"),
            include_str!("steps/hosts.rs"),
            include_str!("steps/environment.rs"),
            include_str!("steps/sampling.rs"),
            include_str!("steps/profiling.rs"),
            include_str!("steps/diagnosis.rs"),
            include_str!("steps/report.rs"),
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
            let entry = CATALOGUE.iter().find(|(k, _, _)| *k == key);
            let (_, en, zh) = entry.unwrap_or_else(|| panic!("`{key}` is not in the catalogue"));
            assert!(!en.is_empty() && !zh.is_empty(), "{key}");
            // Names are written the same in both.
            if !["ssh"].contains(&key.as_str()) {
                assert_ne!(en, zh, "`{key}` is not translated");
            }
        }
    }

    #[test]
    fn keys_are_unique() {
        let mut keys: Vec<&str> = CATALOGUE.iter().map(|(k, _, _)| *k).collect();
        keys.sort_unstable();
        let n = keys.len();
        keys.dedup();
        assert_eq!(keys.len(), n);
    }
}
