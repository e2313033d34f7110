//! The report's own words: headings, table headers, chart titles, axes and series names.

use checkup_model::Language;

/// Every string the report itself writes, in one language.
pub struct Text {
    /// The language it is in.
    pub language: Language,
    /// The `lang` attribute of HTML reports: "en" or "zh".
    pub lang_tag: &'static str,
    /// Punctuation after a label and at a sentence's end: full-width in Chinese.
    pub colon: &'static str,
    /// "." in English.
    pub full_stop: &'static str,
    /// ", " in English.
    pub comma: &'static str,
    /// Between two sentences: a space in English, nothing after a full-width stop.
    pub sentence_gap: &'static str,
    /// "GPU Checkup report" in English.
    pub title: &'static str,
    /// "Verdict" in English.
    pub verdict: &'static str,
    /// "Primary bottleneck" in English.
    pub primary: &'static str,
    /// "Run" in English.
    pub run: &'static str,
    /// "fact" in English.
    pub fact: &'static str,
    /// "value" in English.
    pub value: &'static str,
    /// The rows of the run's facts table: GPU, driver, CUDA of the driver and of torch, torch, NCCL, model, batch size, precision, host CPUs.
    pub facts: [&'static str; 10],
    /// The probe's account of the training: heading and the note under it.
    pub training: &'static str,
    /// The note under the training's table: recorded without code changes; fixes never ask for what is set.
    pub training_note: &'static str,
    /// "Environment" in English.
    pub environment: &'static str,
    /// Table columns, ["check", "status", "value", "fix"] in English.
    pub env_headers: [&'static str; 4],
    /// ["pass", "WARN", "FAIL", "unknown"] in English.
    pub status: [&'static str; 4],
    /// "Charts" in English.
    pub charts: &'static str,
    /// "Findings" in English.
    pub findings: &'static str,
    /// "Severity" in English.
    pub severity: &'static str,
    /// "explains" in English.
    pub explains: &'static str,
    /// "of step time" in English.
    pub of_step_time: &'static str,
    /// "confidence" in English.
    pub confidence: &'static str,
    /// Table columns, ["evidence", "value", "threshold", "source"] in English.
    pub evidence_headers: [&'static str; 4],
    /// "Fix" in English.
    pub fix: &'static str,
    /// "Expected" in English.
    pub expected: &'static str,
    /// Heading of the informational findings after the ones that matter.
    pub also_noticed: &'static str,
    /// Heading of the headline figures on the first page.
    pub at_a_glance: &'static str,
    /// Heading of the checks that warned or failed, on the first page.
    pub environment_problems: &'static str,
    /// Heading of every finding's fixes in one list, ranked by expected gain.
    pub fixes_by_gain: &'static str,
    /// Note under that list: what the gains assume.
    pub fixes_by_gain_note: &'static str,
    /// Before the finding a fix in that list belongs to.
    pub for_finding: &'static str,
    /// "GPU time per rank" in English.
    pub per_rank: &'static str,
    /// Table columns of the per-rank table: window, compute, exposed communication and copies, idle by kind, kernels.
    pub rank_headers: [&'static str; 10],
    /// Under a per-rank table of a job with many ranks: which rows it shows (`{n}`: the ranks).
    pub ranks_shown_note: &'static str,
    /// The first cell of the row of medians over every rank (`{n}`: the ranks).
    pub median_of_ranks: &'static str,
    /// "Step timing (unprofiled steps)" in English.
    pub step_timing: &'static str,
    /// Table columns, ["rank", "steps", "warm-up", "mean step", "median", "p90", "data wait", "stalls"] in English.
    pub step_headers: [&'static str; 8],
    /// "every {} steps" in English.
    pub every_n_steps: &'static str,
    /// Heading of the kernels that took most GPU time in the profiled steps.
    pub top_kernels: &'static str,
    /// Under that heading: which rank and steps (`{rank}`, `{steps}`).
    pub top_kernels_note: &'static str,
    /// Table columns, ["kernel", "calls per step", "mean", "GPU time per step", "share of kernel time"] in English.
    pub kernel_headers: [&'static str; 5],
    /// "Operators by GPU time" in English.
    pub top_operators: &'static str,
    /// Under that heading: which rank and steps (`{rank}`, `{steps}`).
    pub top_operators_note: &'static str,
    /// Table columns of the operator table: operator, calls, GPU time per call and per step, share.
    pub operator_headers: [&'static str; 5],
    /// "Measurement window and method" in English.
    pub method: &'static str,
    /// "Steady-state window" in English.
    pub steady_window: &'static str,
    /// How GPU time is split into compute, exposed communication, copies and idle, and how idle gaps are classed.
    pub method_text: &'static str,
    /// "Sources" in English.
    pub sources: &'static str,
    /// "Thresholds" in English.
    pub thresholds: &'static str,
    /// Chart title, "GPU utilisation, SM activity, tensor cores and DRAM bandwidth" in English.
    pub chart_util: &'static str,
    /// Chart title, "Power draw vs limit" in English.
    pub chart_power: &'static str,
    /// Chart title, "GPU memory in use vs the card's" in English.
    pub chart_memory: &'static str,
    /// Chart title, "GPU temperature vs its slowdown threshold" in English.
    pub chart_temperature: &'static str,
    /// Chart title, "PCIe and NVLink throughput vs the PCIe link's peak" in English.
    pub chart_links: &'static str,
    /// Chart title, "SM clock vs maximum" in English.
    pub chart_clock: &'static str,
    /// Chart title, "Host CPU" in English.
    pub chart_host: &'static str,
    /// Chart title, "GPU timeline over three steady steps" in English.
    pub chart_timeline: &'static str,
    /// Chart title, "Step-time breakdown" in English.
    pub chart_breakdown: &'static str,
    /// The time ledger's chart and heading.
    pub chart_ledger: &'static str,
    /// Chart title of the rank × step heatmap.
    pub chart_rank_steps: &'static str,
    /// Under the heatmap's panels: what a cell holds and how to read its shade.
    pub rank_steps_scale: &'static str,
    /// Chart title, "GPU idle time by kind and by cause" in English.
    pub chart_idle: &'static str,
    /// Chart title, "Step times (warm-up shaded, stalls marked)" in English.
    pub chart_steps: &'static str,
    /// Chart title, "Multi-GPU scaling" in English.
    pub chart_scaling: &'static str,
    /// Chart title, "Step-time distribution (stalls marked)" in English.
    pub chart_distribution: &'static str,
    /// Axis label, "steps" in English.
    pub axis_steps: &'static str,
    /// Axis label, "time (s)" in English.
    pub axis_time_s: &'static str,
    /// Axis label, "time (ms)" in English.
    pub axis_time_ms: &'static str,
    /// Axis label, "percent" in English.
    pub axis_percent: &'static str,
    /// Axis label, "% of step time" in English.
    pub axis_percent_of_step: &'static str,
    /// Axis label, "power (W)" in English.
    pub axis_watts: &'static str,
    /// Axis label, "memory (GiB)" in English.
    pub axis_gib: &'static str,
    /// Axis label, "temperature (°C)" in English.
    pub axis_celsius: &'static str,
    /// Axis label, "throughput (GB/s)" in English.
    pub axis_gbs: &'static str,
    /// Axis label, "clock (MHz)" in English.
    pub axis_mhz: &'static str,
    /// Axis label, "step time (ms)" in English.
    pub axis_step_ms: &'static str,
    /// Axis label, "samples/s" in English.
    pub axis_samples_per_s: &'static str,
    /// A curve in a chart's legend, "GPU-Util (NVML)" in English.
    pub series_util: &'static str,
    /// A curve in a chart's legend, "SM active (GPM)" in English.
    pub series_sm_active: &'static str,
    /// A curve in a chart's legend, "tensor cores (GPM)" in English.
    pub series_tensor: &'static str,
    /// A curve in a chart's legend, "DRAM bandwidth (GPM)" in English.
    pub series_dram: &'static str,
    /// A curve in a chart's legend, "power" in English.
    pub series_power: &'static str,
    /// A curve in a chart's legend, "power limit" in English.
    pub series_limit: &'static str,
    /// A curve in a chart's legend, "in use, all processes (NVML)" in English.
    pub series_mem_used: &'static str,
    /// A curve in a chart's legend, "the card's memory" in English.
    pub series_mem_total: &'static str,
    /// A curve in a chart's legend, "live tensors between steps (probe)" in English.
    pub series_allocated: &'static str,
    /// A curve in a chart's legend, "reserved by PyTorch (probe)" in English.
    pub series_reserved: &'static str,
    /// A curve in a chart's legend, "SM clock" in English.
    pub series_sm_clock: &'static str,
    /// A curve in a chart's legend, "max SM clock" in English.
    pub series_max: &'static str,
    /// A curve in a chart's legend, "all cores" in English.
    pub series_host_total: &'static str,
    /// A curve in a chart's legend, "training processes (100 = 1 core)" in English.
    pub series_proc_tree: &'static str,
    /// A curve in a chart's legend, "step time" in English.
    pub series_step: &'static str,
    /// A curve in a chart's legend, "stall" in English.
    pub series_stall: &'static str,
    /// A curve in a chart's legend, "median of each tenth of the run" in English.
    pub series_trend: &'static str,
    /// A curve in a chart's legend, "GPU temperature" in English.
    pub series_temperature: &'static str,
    /// A curve in a chart's legend, "slowdown threshold" in English.
    pub series_slowdown: &'static str,
    /// A curve in a chart's legend, "PCIe to the GPU" in English.
    pub series_pcie_rx: &'static str,
    /// A curve in a chart's legend, "PCIe from the GPU" in English.
    pub series_pcie_tx: &'static str,
    /// A curve in a chart's legend, "NVLink in" in English.
    pub series_nvlink_rx: &'static str,
    /// A curve in a chart's legend, "NVLink out" in English.
    pub series_nvlink_tx: &'static str,
    /// A curve in a chart's legend, "PCIe peak each way" in English.
    pub series_pcie_peak: &'static str,
    /// A process's curve is "PID 524", the training's "PID 524 (the training)".
    pub series_the_training: &'static str,
    /// "cores" in English.
    pub cores: &'static str,
    /// "rank" in English.
    pub rank: &'static str,
    /// "step" in English.
    pub step: &'static str,
    /// A segment of a step-time bar, "compute" in English.
    pub seg_compute: &'static str,
    /// A segment of a step-time bar, "communication" in English.
    pub seg_comm: &'static str,
    /// A segment of a step-time bar, "copies / sets" in English.
    pub seg_memory: &'static str,
    /// A segment of a step-time bar, "step start" in English.
    pub seg_step: &'static str,
    /// ["kernel", "memcpy", "memset", "communication", "CUDA runtime", "DataLoader", "other CPU"] in English.
    pub breakdown_parts: [&'static str; 7],
    /// "by kind" in English.
    pub idle_by_kind: &'static str,
    /// "by cause" in English.
    pub idle_by_cause: &'static str,
    /// ["host wait", "kernel wait", "other"] in English.
    pub idle_parts: [&'static str; 3],
    /// ["DataLoader", "checkpoint", "sync", "launch", "other"] in English.
    pub cause_parts: [&'static str; 5],
    /// "ideal" in English.
    pub ideal: &'static str,
    /// "measured" in English.
    pub measured: &'static str,
    /// "Baseline comparison" in English.
    pub baseline: &'static str,
    /// Table columns, ["figure", "baseline", "now", "change"] in English.
    pub baseline_headers: [&'static str; 4],
    /// "page" in English.
    pub page: &'static str,
    /// "Generated by GPU Checkup" in English.
    pub generated_by: &'static str,
}

/// The report's words in `lang`.
pub fn text(lang: Language) -> &'static Text {
    match lang {
        Language::En => &EN,
        Language::Zh => &ZH,
    }
}

static EN: Text = Text {
    language: Language::En,
    lang_tag: "en",
    colon: ": ",
    full_stop: ".",
    comma: ", ",
    sentence_gap: " ",
    title: "GPU Checkup report",
    verdict: "Verdict",
    primary: "Primary bottleneck",
    run: "Run",
    fact: "fact",
    value: "value",
    facts: ["GPU", "driver", "CUDA (driver)", "CUDA (torch)", "torch", "NCCL", "model", "batch size", "precision", "host CPUs"],
    training: "The training, as the probe saw it",
    training_note: "Recorded from inside the training, without code changes. The fixes in this report never ask for what is already set here.",
    environment: "Environment",
    env_headers: ["check", "status", "value", "fix"],
    status: ["pass", "WARN", "FAIL", "unknown"],
    charts: "Charts",
    findings: "Findings",
    severity: "Severity",
    explains: "explains",
    of_step_time: "of step time",
    confidence: "confidence",
    evidence_headers: ["evidence", "value", "threshold", "source"],
    fix: "Fix",
    expected: "Expected",
    at_a_glance: "At a glance",
    also_noticed: "Also noticed",
    environment_problems: "Environment problems to fix first",
    fixes_by_gain: "What to do first, by expected gain",
    for_finding: "Finding",
    fixes_by_gain_note: "The best fix of each finding, with the step time if it removed the time that finding measured in this recording. Gains of different findings roughly add up; those of one finding's fixes do not. The findings below hold the evidence and the other fixes.",
    per_rank: "GPU time per rank",
    rank_headers: ["rank", "window", "compute", "exposed comm", "exposed copies", "idle", "idle: host wait", "idle: kernel wait", "kernels/step", "median kernel"],
    ranks_shown_note: "The job has {n} ranks: the table shows the diagnosed rank and, for each column, the ranks with the highest and the lowest value, then the median of all of them. The JSON export holds every rank.",
    median_of_ranks: "median of {n}",
    step_timing: "Step timing (unprofiled steps)",
    step_headers: ["rank", "steps", "warm-up", "mean step", "median", "p90", "data wait", "stalls"],
    every_n_steps: "every {} steps",
    top_kernels: "Kernels by GPU time",
    top_kernels_note: "The kernels that took most GPU time in the profiled steps of rank {rank} ({steps} steps), per step. Names are shortened to the kernel's function (and the operation an elementwise kernel runs); the trace holds them in full.",
    kernel_headers: ["kernel", "calls per step", "mean", "GPU time per step", "share of kernel time"],
    top_operators: "Operators by GPU time",
    top_operators_note: "The PyTorch operators whose kernels took most GPU time in the same steps of rank {rank} ({steps} steps): each kernel counts under the operator that launched it (its \"self\" GPU time, as torch.profiler's tables count it), the mean is per call of the operator. The names are the ones your model code calls or autograd runs for it.",
    operator_headers: ["operator", "calls per step", "mean GPU time per call", "GPU time per step", "share of kernel time"],
    method: "Measurement window and method",
    steady_window: "Steady-state window",
    method_text: "GPU time is split exclusively: compute kernels, then communication not hidden by compute, then copies not hidden by either, then idle. Idle gaps follow Holistic Trace Analysis: *host wait* when the next work had not been launched when the GPU went idle, *kernel wait* for shorter gaps with work queued. Shares are of step time on the diagnosed rank; launch-bound claims are checked against unprofiled step times, since the profiler slows the host.",
    sources: "Sources",
    thresholds: "Thresholds",
    chart_util: "GPU utilisation, SM activity, tensor cores and DRAM bandwidth",
    chart_power: "Power draw vs limit",
    chart_memory: "GPU memory in use vs the card's",
    chart_temperature: "GPU temperature vs its slowdown threshold",
    chart_links: "PCIe and NVLink throughput vs the PCIe link's peak",
    chart_clock: "SM clock vs maximum",
    chart_host: "Host CPU",
    chart_timeline: "GPU timeline over three steady steps",
    chart_breakdown: "Step-time breakdown",
    chart_ledger: "Where the run's time went",
    chart_rank_steps: "Each rank, step by step (profiled steps)",
    rank_steps_scale: "ms per step; darker is more, 0–{max} ms",
    chart_idle: "GPU idle time by kind and by cause",
    chart_steps: "Step times (warm-up shaded, stalls marked)",
    chart_scaling: "Multi-GPU scaling",
    chart_distribution: "Step-time distribution (stalls marked)",
    axis_steps: "steps",
    axis_time_s: "time (s)",
    axis_time_ms: "time (ms)",
    axis_percent: "percent",
    axis_percent_of_step: "% of step time",
    axis_watts: "power (W)",
    axis_gib: "memory (GiB)",
    axis_celsius: "temperature (°C)",
    axis_gbs: "throughput (GB/s)",
    axis_mhz: "clock (MHz)",
    axis_step_ms: "step time (ms)",
    axis_samples_per_s: "samples/s",
    series_util: "GPU-Util (NVML)",
    series_sm_active: "SM active (GPM)",
    series_tensor: "tensor cores (GPM)",
    series_dram: "DRAM bandwidth (GPM)",
    series_power: "power",
    series_limit: "power limit",
    series_mem_used: "in use, all processes (NVML)",
    series_mem_total: "the card's memory",
    series_allocated: "live tensors between steps (probe)",
    series_reserved: "reserved by PyTorch (probe)",
    series_sm_clock: "SM clock",
    series_max: "max SM clock",
    series_host_total: "all cores",
    series_proc_tree: "training processes (100 = 1 core)",
    series_step: "step time",
    series_stall: "stall",
    series_trend: "median of each tenth of the run",
    series_temperature: "GPU temperature",
    series_slowdown: "slowdown threshold",
    series_pcie_rx: "PCIe to the GPU",
    series_pcie_tx: "PCIe from the GPU",
    series_nvlink_rx: "NVLink in",
    series_nvlink_tx: "NVLink out",
    series_pcie_peak: "PCIe peak each way",
    series_the_training: "the training",
    cores: "cores",
    rank: "rank",
    step: "step",
    seg_compute: "compute",
    seg_comm: "communication",
    seg_memory: "copies / sets",
    seg_step: "step start",
    breakdown_parts: ["kernel", "memcpy", "memset", "communication", "CUDA runtime", "DataLoader", "other CPU"],
    idle_by_kind: "by kind",
    idle_by_cause: "by cause",
    idle_parts: ["host wait", "kernel wait", "other"],
    cause_parts: ["DataLoader", "checkpoint", "sync", "launch", "other"],
    ideal: "ideal",
    measured: "measured",
    baseline: "Baseline comparison",
    baseline_headers: ["figure", "baseline", "now", "change"],
    page: "page",
    generated_by: "Generated by GPU Checkup",
};

static ZH: Text = Text {
    language: Language::Zh,
    lang_tag: "zh",
    colon: "：",
    full_stop: "。",
    comma: "，",
    sentence_gap: "",
    title: "GPU 体检报告",
    verdict: "结论",
    primary: "主要瓶颈",
    run: "运行信息",
    fact: "项目",
    value: "值",
    facts: ["GPU", "驱动", "CUDA（驱动）", "CUDA（torch）", "torch", "NCCL", "模型", "批大小", "精度", "主机 CPU 数"],
    training: "探针所见的训练",
    training_note: "在训练内部记录，无需修改代码。本报告中的修复建议不会要求已经在这里设置好的内容。",
    environment: "环境检查",
    env_headers: ["检查项", "状态", "值", "修复"],
    status: ["通过", "警告", "失败", "未知"],
    charts: "图表",
    findings: "发现",
    severity: "严重程度",
    explains: "解释了",
    of_step_time: "的步骤时间",
    confidence: "置信度",
    evidence_headers: ["证据", "值", "阈值", "来源"],
    fix: "修复",
    expected: "预期效果",
    at_a_glance: "概览",
    also_noticed: "另外注意到",
    environment_problems: "需要先修复的环境问题",
    fixes_by_gain: "先做什么（按预期收益排序）",
    for_finding: "对应发现",
    fixes_by_gain_note: "每个发现的最佳修复，以及假设它消除了该发现在本次记录中测得的耗时后的步骤时间。不同发现的收益大致可以相加，同一发现的几项修复则不能。下方各发现给出证据和其他修复。",
    per_rank: "各 rank 的 GPU 时间",
    rank_headers: ["rank", "窗口", "计算", "暴露的通信", "暴露的拷贝", "空闲", "空闲：等待主机", "空闲：等待内核", "每步内核数", "内核中位时长"],
    ranks_shown_note: "该作业有 {n} 个 rank：表中列出被诊断的 rank，以及每一列数值最高和最低的 rank，最后一行是全部 rank 的中位数。JSON 导出包含每个 rank。",
    median_of_ranks: "{n} 个的中位数",
    step_timing: "步骤耗时（未分析的步骤）",
    step_headers: ["rank", "步数", "预热", "平均步长", "中位数", "p90", "数据等待", "停顿"],
    every_n_steps: "每 {} 步",
    top_kernels: "按 GPU 时间排列的 kernel",
    top_kernels_note: "rank {rank} 被分析的训练步骤（{steps} 步）中占用 GPU 时间最多的 kernel，按每步计。名称只保留 kernel 的函数名（逐元素 kernel 另注其运算）；完整名称见 trace。",
    kernel_headers: ["kernel", "每步调用次数", "平均耗时", "每步 GPU 时间", "占 kernel 时间"],
    top_operators: "按 GPU 时间排列的算子",
    top_operators_note: "rank {rank} 同样这些步骤（{steps} 步）中 kernel 占用 GPU 时间最多的 PyTorch 算子：每个 kernel 计入发射它的算子（即 torch.profiler 表格中的 self GPU 时间），平均值按算子的每次调用计。这些名称就是模型代码调用的、或 autograd 为其执行的算子。",
    operator_headers: ["算子", "每步调用次数", "每次调用平均 GPU 时间", "每步 GPU 时间", "占 kernel 时间"],
    method: "测量窗口与方法",
    steady_window: "稳态窗口",
    method_text: "GPU 时间按互斥顺序划分：计算内核、未被计算隐藏的通信、未被二者隐藏的拷贝，其余为空闲。空闲间隙沿用 Holistic Trace Analysis 的定义：GPU 空闲时下一个工作尚未发射为*等待主机*，工作已排队的短间隙为*等待内核*。占比以被诊断 rank 的步骤时间计算；由于分析器会拖慢主机，内核启动瓶颈的判断会用未分析步骤的耗时复核。",
    sources: "数据来源",
    thresholds: "阈值",
    chart_util: "GPU 利用率、SM 活跃度、张量核与显存带宽",
    chart_power: "功耗与功耗上限",
    chart_memory: "GPU 显存占用与显卡容量",
    chart_temperature: "GPU 温度与降频阈值",
    chart_links: "PCIe 与 NVLink 吞吐量对比 PCIe 链路峰值",
    chart_clock: "SM 时钟与最大值",
    chart_host: "主机 CPU",
    chart_timeline: "三个稳态步骤的 GPU 时间线",
    chart_breakdown: "步骤时间分解",
    chart_ledger: "运行时间的去向",
    chart_rank_steps: "各 rank 逐步对比（分析的步骤）",
    rank_steps_scale: "每步毫秒数；颜色越深越多，0–{max} ms",
    chart_idle: "GPU 空闲时间（按类型与原因）",
    chart_steps: "步骤耗时（预热区阴影，停顿已标记）",
    chart_scaling: "多 GPU 扩展性",
    chart_distribution: "步骤耗时分布（停顿已标记）",
    axis_steps: "步数",
    axis_time_s: "时间（秒）",
    axis_time_ms: "时间（毫秒）",
    axis_percent: "百分比",
    axis_percent_of_step: "步骤时间的百分比",
    axis_watts: "功耗（瓦）",
    axis_gib: "显存（GiB）",
    axis_celsius: "温度（°C）",
    axis_gbs: "吞吐量（GB/s）",
    axis_mhz: "时钟（MHz）",
    axis_step_ms: "步骤耗时（毫秒）",
    axis_samples_per_s: "样本/秒",
    series_util: "GPU 利用率（NVML）",
    series_sm_active: "SM 活跃（GPM）",
    series_tensor: "张量核（GPM）",
    series_dram: "显存带宽（GPM）",
    series_power: "功耗",
    series_limit: "功耗上限",
    series_mem_used: "已用（所有进程，NVML）",
    series_mem_total: "显卡容量",
    series_allocated: "步骤之间的活动张量（探针）",
    series_reserved: "PyTorch 预留（探针）",
    series_sm_clock: "SM 时钟",
    series_max: "最大 SM 时钟",
    series_host_total: "全部核心",
    series_proc_tree: "训练进程（100 = 1 核）",
    series_step: "步骤耗时",
    series_stall: "停顿",
    series_trend: "每十分之一运行的中位数",
    series_temperature: "GPU 温度",
    series_slowdown: "降频阈值",
    series_pcie_rx: "PCIe 传入 GPU",
    series_pcie_tx: "PCIe 传出 GPU",
    series_nvlink_rx: "NVLink 传入",
    series_nvlink_tx: "NVLink 传出",
    series_pcie_peak: "PCIe 单向峰值",
    series_the_training: "训练进程",
    cores: "核",
    rank: "rank",
    step: "步",
    seg_compute: "计算",
    seg_comm: "通信",
    seg_memory: "拷贝/置零",
    seg_step: "步骤开始",
    breakdown_parts: ["内核", "memcpy", "memset", "通信", "CUDA 运行时", "DataLoader", "其他 CPU"],
    idle_by_kind: "按类型",
    idle_by_cause: "按原因",
    idle_parts: ["等待主机", "等待内核", "其他"],
    cause_parts: ["DataLoader", "检查点", "同步", "启动", "其他"],
    ideal: "理想",
    measured: "实测",
    baseline: "与基线对比",
    baseline_headers: ["指标", "基线", "当前", "变化"],
    page: "第",
    generated_by: "由 GPU Checkup 生成",
};

/// The rank a diagnosis of several ranks follows, and how it was picked, with its host on a
/// job of several: "Diagnosed rank: 3 on gpu-b (the slowest; the others wait for it)". None
/// for a run of one rank.
pub fn diagnosed_rank(d: &checkup_model::Diagnosis, l: Language) -> Option<String> {
    let r = d.diagnosed_rank.filter(|_| d.ranks.len() > 1)?;
    let rank = crate::rank_label(r, &d.facts, l);
    let shifting = d.finding("communication/shifting_straggler").is_some();
    Some(match (l, shifting) {
        (Language::En, false) => format!("Diagnosed rank: {rank} (the slowest; the others wait for it)"),
        (Language::En, true) => format!("Diagnosed rank: {rank} (the one that waited least over the profiled steps; the slowest changes from step to step)"),
        (Language::Zh, false) => format!("诊断的 rank：{rank}——最慢的一个，其他 rank 在等它"),
        (Language::Zh, true) => format!("诊断的 rank：{rank}——在分析的步骤中等待最少的一个；最慢的 rank 每一步都在变"),
    })
}
