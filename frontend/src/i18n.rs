//! The UI's message catalogue: English and Simplified Chinese; the language follows the
//! system's and can be switched in the app.

pub fn system_language() -> String {
    let nav = web_sys_language();
    if nav.to_ascii_lowercase().starts_with("zh") {
        "zh".into()
    } else {
        "en".into()
    }
}

fn web_sys_language() -> String {
    js_sys::Reflect::get(&js_sys::global(), &"navigator".into())
        .and_then(|n| js_sys::Reflect::get(&n, &"language".into()))
        .ok()
        .and_then(|l| l.as_string())
        .unwrap_or_default()
}

pub fn tr(lang: &str, key: &str) -> String {
    let zh = lang == "zh";
    let s = match key {
        "app_title" => {
            if zh {
                "GPU 体检"
            } else {
                "GPU Checkup"
            }
        }
        "pick" => {
            if zh {
                "从左侧选择一次体检（内置的演示体检来自真实的 H200 训练记录）。"
            } else {
                "Pick a checkup on the left (the demo checkups are real H200 training recordings)."
            }
        }
        "environment" => {
            if zh {
                "1 环境"
            } else {
                "1 Environment"
            }
        }
        "sampling" => {
            if zh {
                "2 实时采样"
            } else {
                "2 Live sampling"
            }
        }
        "profiling" => {
            if zh {
                "3 性能分析"
            } else {
                "3 Profiling"
            }
        }
        "diagnosis" => {
            if zh {
                "4 诊断"
            } else {
                "4 Diagnosis"
            }
        }
        "report" => {
            if zh {
                "5 报告"
            } else {
                "5 Report"
            }
        }
        "no_diagnosis" => {
            if zh {
                "这次体检还没有诊断。"
            } else {
                "This checkup has no diagnosis yet."
            }
        }
        "check" => {
            if zh {
                "检查项"
            } else {
                "check"
            }
        }
        "value" => {
            if zh {
                "值"
            } else {
                "value"
            }
        }
        "meaning" => {
            if zh {
                "含义"
            } else {
                "what it means"
            }
        }
        "fix" => {
            if zh {
                "修复"
            } else {
                "fix"
            }
        }
        "primary" => {
            if zh {
                "主要瓶颈"
            } else {
                "Primary bottleneck"
            }
        }
        "window" => {
            if zh {
                "测量窗口"
            } else {
                "Measurement window"
            }
        }
        "confidence" => {
            if zh {
                "置信度"
            } else {
                "confidence"
            }
        }
        other => return other.to_string(),
    };
    s.to_string()
}
