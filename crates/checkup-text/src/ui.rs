//! The app's own words (buttons, step names, help, errors) by `UiWord`, in English and
//! Simplified Chinese: one exhaustive `match`, so a word without both does not build. The
//! model's kinds the UI shows (steps, live statuses, severities, error kinds, reconnect
//! reasons) map to their word here, and sentences with slots are filled by a function each.

use checkup_model::{
    ErrorKind, Language, LiveStatus, ReconnectReason, Severity, StoreNotice, UiError, UiWord,
    WizardStep,
};

/// A word's English and Simplified Chinese.
fn words(w: UiWord) -> (&'static str, &'static str) {
    match w {
        UiWord::AppTitle => ("GPU Checkup", "GPU 体检"),
        UiWord::StoreStartedAfresh => ("The checkup history {path} could not be read ({detail}). It was kept unchanged as {kept_as} and a new, empty history was started: checkups from now on are saved as usual.", "无法读取体检记录 {path}（{detail}）。原文件已原样保留为 {kept_as}，并已新建一份空的体检记录：此后的体检照常保存。"),
        UiWord::StoreReadOnly => ("The checkup history {path} cannot be written ({detail}), so it is shown read-only: you can open every checkup, but new ones and changes are not saved. Check the file's permissions and the free disk space, then restart GPU Checkup.", "体检记录 {path} 无法写入（{detail}），因此以只读方式打开：可以查看所有体检，但新体检和修改不会保存。请检查文件权限和磁盘剩余空间，然后重启 GPU 体检。"),
        UiWord::StoreNewer => ("The checkup history {path} was written by a newer version of GPU Checkup, so this version shows it read-only and saves nothing in it. Update GPU Checkup to work with it again.", "体检记录 {path} 由更新版本的 GPU 体检写入，本版本以只读方式显示，不会写入任何内容。请升级 GPU 体检后再继续使用。"),
        UiWord::StoreTemporary => ("The checkup history {path} is locked by another program, probably another GPU Checkup window ({detail}). It was left alone; this session's checkups are kept in {temporary} instead. Close the other one and restart to see your history.", "体检记录 {path} 被另一个程序锁定，可能是另一个 GPU 体检窗口（{detail}）。原文件未作改动；本次的体检改存到 {temporary}。请关闭另一个窗口并重启，即可看到原来的记录。"),
        UiWord::Pick => ("Pick a checkup on the left, or connect to a GPU host to start one (the demo checkups are real H200 training recordings).", "从左侧选择一次体检，或连接 GPU 主机开始新的体检（内置的演示体检来自真实的 H200 训练记录）。"),
        UiWord::Environment => ("1 Environment", "1 环境"),
        UiWord::Sampling => ("2 Live sampling", "2 实时采样"),
        UiWord::Profiling => ("3 Profiling", "3 性能分析"),
        UiWord::Diagnosis => ("4 Diagnosis", "4 诊断"),
        UiWord::Report => ("5 Report", "5 报告"),
        UiWord::JobHelp => ("The job is the training to watch. Its PID (process ID) is the number the system gives a running program: pick the training from the processes on the GPUs below, or find it on the host with `nvidia-smi` or `ps aux | grep python`. `gpu 0` watches one GPU whatever runs on it; left empty, the whole host is watched.", "“任务”是要观察的训练。PID（进程号）是系统分配给正在运行的程序的编号：可以从下面正在使用 GPU 的进程中选出训练进程，也可以在主机上用 `nvidia-smi` 或 `ps aux | grep python` 查找。填 `gpu 0` 表示观察一块 GPU，不论上面运行什么；留空则观察整台主机。"),
        UiWord::FindProcesses => ("Show the processes on the GPUs", "显示正在使用 GPU 的进程"),
        UiWord::NoGpuProcesses => ("No process is using a GPU right now: start the training first, then show the processes again (or watch by GPU, or the whole host).", "目前没有进程在使用 GPU：请先启动训练，然后再次显示进程（或者按 GPU 观察，或观察整台主机）。"),
        UiWord::UseThis => ("Use", "选用"),
        UiWord::GpuMemory => ("GPU memory", "显存"),
        UiWord::ProcessesRecorded => ("These are the processes of the recording this agent plays back ({path}), not of this host.", "这些是该 agent 正在回放的记录（{path}）中的进程，而不是本主机的进程。"),
        UiWord::HoverTime => ("t = {t} s", "时间 {t} 秒"),
        UiWord::HoverValue => ("{label}: {value} {unit}", "{label}：{value} {unit}"),
        UiWord::ZoomHelp => ("Point at a curve to read its values; drag across the chart to zoom in on those seconds.", "把鼠标指向曲线可读出数值；在图上横向拖动可放大那段时间。"),
        UiWord::ZoomReset => ("Whole run", "整个运行"),
        UiWord::NextStep => ("Next: {step} →", "下一步：{step} →"),
        UiWord::ArrivedAfterSampling => ("Sampling finished: {samples} samples over {seconds} s. Below is what they show; profiling a few steps (step 3) tells the cause when they cannot.", "采样完成：{seconds} 秒内共 {samples} 个样本。下面是它们显示的情况；如果看不出原因，请对几个训练步骤做性能分析（第 3 步）。"),
        UiWord::ArrivedAfterProfiling => ("Profiling finished: {steps} steps recorded. Below is the diagnosis.", "性能分析完成：共记录 {steps} 个训练步骤。下面是诊断。"),
        UiWord::IntroEnvironment => ("Checks the GPU host before anything else: the driver and CUDA versions, whether torch in your training's environment sees the GPU and was built for it, persistence mode, the PCIe link, ECC errors, the power limit and how many CPU cores the DataLoader can use. A problem here slows every run whatever the model does, so fix failures first.", "在做任何其他事之前先检查 GPU 主机：驱动和 CUDA 版本、训练所用环境中的 torch 能否看到 GPU 并且是为它编译的、持久模式、PCIe 链路、ECC 错误、功率上限，以及 DataLoader 能用多少个 CPU 核心。这里的问题会拖慢每一次训练，与模型无关，所以请先修复失败项。"),
        UiWord::IntroEnvironmentNext => ("Takes a few seconds. Next: watch the running training (step 2), or run a few profiled steps of it (step 3).", "只需几秒。下一步：观察正在运行的训练（第 2 步），或对它的几个训练步骤做性能分析（第 3 步）。"),
        UiWord::IntroSampling => ("Watches the GPU and the host while your training runs, without touching it: GPU utilisation, power, clocks and the CPU of the training's processes, ten times a second. It shows whether the GPU is kept busy and when it idles. In Job, enter the PID of the training process (on the host, nvidia-smi lists the python process using the GPU), or gpu 0 to watch one GPU, or leave it empty.", "在训练运行时观察 GPU 和主机，不改动训练本身：每秒十次记录 GPU 利用率、功率、频率以及训练进程的 CPU。它说明 GPU 是否一直在忙、何时空闲。在“任务”中填写训练进程的 PID（在主机上运行 nvidia-smi，可以看到使用 GPU 的 python 进程），或填写 gpu 0 只观察一块 GPU，也可以留空。"),
        UiWord::IntroSamplingNext => ("Sample for a minute or more once the training is past its start-up. Next: profile a few steps (step 3) to learn the cause, or open the diagnosis (step 4).", "等训练过了启动阶段后，采样一分钟或更久。下一步：分析几个训练步骤（第 3 步）以找出原因，或查看诊断（第 4 步）。"),
        UiWord::IntroProfiling => ("Runs your training command with GPU Checkup's probe, without changing your code: it times every step and its wait for data, notes what the training is (DataLoader, optimizer, compile, precision) and records 8 steps with the PyTorch profiler. That tells the cause: input pipeline, kernel launches, synchronisation, copies, communication or periodic stalls.", "用 GPU 体检的探针运行你的训练命令，无需修改代码：它为每一步及其等待数据的时间计时，记下训练的设置（DataLoader、优化器、编译、精度），并用 PyTorch 分析器记录 8 个步骤。由此可以找出原因：输入管线、内核启动、同步、拷贝、通信或周期性停顿。"),
        UiWord::IntroProfilingNext => ("Takes as long as the command runs: a short run of your real training, 100 to 300 steps, is enough. Next: the diagnosis (step 4).", "耗时与命令运行时间相同：用你的真实训练命令短跑 100 到 300 步即可。下一步：诊断（第 4 步）。"),
        UiWord::IntroDiagnosis => ("What limits this run and what to change first. The top says how long a step takes and where the time goes, then the fixes ranked by the time they would save, each with code to paste. The evidence behind each finding is below it.", "这次训练受什么限制、首先该改什么。顶部给出每步耗时和时间花在哪里，然后是按可节省时间排序的修复，每项都附有可粘贴的代码。每个发现的证据列在它的下方。"),
        UiWord::IntroDiagnosisNext => ("Apply the first fix, then press Re-run and compare under it: a new checkup of the same training opens, and its diagnosis shows what the fix gained.", "应用第一项修复后，点击它下方的“重新运行并对比”：会打开同一训练的新一次体检，其诊断页给出修复带来的收益。"),
        UiWord::IntroReport => ("A report for your team's review: page 1 holds the verdict, the headline figures, the fixes with their expected gains and any environment problems; the evidence, charts and run facts follow. Export it as PDF, HTML or Markdown.", "供团队评审的报告：第 1 页包含结论、关键数字、修复及其预期收益，以及环境问题；之后是证据、图表和运行信息。可导出为 PDF、HTML 或 Markdown。"),
        UiWord::IntroReportNext => ("Mark a healthy run as the baseline, then compare later checkups with it to see what changed.", "把一次健康的训练设为基线，之后的体检都可以与它对比，看看有什么变化。"),
        UiWord::History => ("Checkups", "体检记录"),
        UiWord::Demo => ("demo", "演示"),
        UiWord::PickFolder => ("Folder…", "文件夹…"),
        UiWord::PickFile => ("File…", "文件…"),
        UiWord::RecordingHost => ("recording", "记录"),
        UiWord::Baseline => ("baseline", "基线"),
        UiWord::Host => ("GPU host", "GPU 主机"),
        UiWord::NoHost => ("Not connected.", "未连接。"),
        UiWord::NoGpu => ("no GPU", "没有 GPU"),
        UiWord::Replaying => ("samples replayed from the recording", "采样回放自记录"),
        UiWord::ThisComputer => ("This computer", "本机"),
        UiWord::Ssh => ("SSH", "SSH"),
        UiWord::Forwarded => ("Agent already forwarded", "已转发的 agent"),
        UiWord::Token => ("token", "令牌"),
        UiWord::Connect => ("Connect", "连接"),
        UiWord::Connecting => ("Connecting…", "正在连接…"),
        UiWord::Prometheus => ("GPU metrics in Prometheus", "Prometheus 中的 GPU 指标"),
        UiWord::PromHost => ("host (Hostname or instance label)", "主机（Hostname 或 instance 标签）"),
        UiWord::PromGpus => ("GPUs: 0, 1 (all when empty)", "GPU：0, 1（留空为全部）"),
        UiWord::PromFrom => ("from: now-2h, RFC 3339", "起始：now-2h 或 RFC 3339"),
        UiWord::PromTo => ("to: now", "结束：now"),
        UiWord::PromLast => ("or the last: 30m (the default)", "或最近：30m（默认）"),
        UiWord::ReadPrometheus => ("Read and diagnose", "读取并诊断"),
        UiWord::ReadingPrometheus => ("Reading the GPU metrics from Prometheus…", "正在从 Prometheus 读取 GPU 指标…"),
        UiWord::SeveralHosts => ("Several hosts", "多台主机"),
        UiWord::ConnectFleet => ("Connect all", "全部连接"),
        UiWord::OrSlurmJob => ("or the nodes of a Slurm job, through its login host:", "或通过登录节点连接一个 Slurm 作业的所有节点："),
        UiWord::SlurmJob => ("job id", "作业 ID"),
        UiWord::SlurmLogin => ("login host", "登录节点"),
        UiWord::ConnectSlurm => ("Connect the job's nodes", "连接作业的节点"),
        UiWord::ConnectingFleet => ("Connecting to the hosts (uploading and starting each agent where needed)…", "正在连接各主机（必要时上传并启动 agent）…"),
        UiWord::FleetConnected => ("Several hosts: {n} of {m} connected", "多台主机：已连接 {n}/{m}"),
        UiWord::IntroFleet => ("The hosts of one job side by side. Compare their environments first: one host on another driver, with persistence off, a narrower PCIe link or a lower power limit is often the one the whole job waits for. Then watch every GPU at once while the job runs; each host's samples are kept as a checkup of that host.", "同一作业的各主机并列显示。先比较它们的环境：驱动不同、持久模式关闭、PCIe 链路更窄或功耗上限更低的主机，往往就是整个作业在等待的那一台。然后在作业运行时同时观察所有 GPU；每台主机的采样都会保存为该主机的一次体检。"),
        UiWord::FleetJob => ("Slurm job {job} ({state})", "Slurm 作业 {job}（{state}）"),
        UiWord::CheckFleet => ("Compare environments", "比较环境"),
        UiWord::CheckingFleet => ("Checking every host…", "正在检查每台主机…"),
        UiWord::WatchFleet => ("Watch every GPU", "观察所有 GPU"),
        UiWord::DisconnectFleet => ("Disconnect all", "全部断开"),
        UiWord::FleetSame => ("No host differs from the others in driver, GPU model, persistence mode, PCIe link, power limit or PyTorch.", "各主机在驱动、GPU 型号、持久模式、PCIe 链路、功耗上限和 PyTorch 上没有差异。"),
        UiWord::FleetDifferences => ("What stands out between the hosts", "主机之间的差异"),
        UiWord::ColHost => ("Host", "主机"),
        UiWord::ColAgent => ("Agent", "Agent 状态"),
        UiWord::ColDriver => ("Driver", "驱动"),
        UiWord::ColGpus => ("GPUs", "GPU"),
        UiWord::ColNotPassed => ("Checks not passed", "未通过的检查"),
        UiWord::GpusRecorded => ("GPUs and driver from the recording {path}", "GPU 与驱动来自记录 {path}"),
        UiWord::OpenItsCheckup => ("Open its checkup", "打开其体检"),
        UiWord::Throttled => ("throttled", "降频"),
        UiWord::GatherJob => ("Diagnose the job's run folders", "诊断作业的运行文件夹"),
        UiWord::GatheringJob => ("Copying each host's run folder (summaries in place of traces) and diagnosing the job…", "正在复制各主机的运行文件夹（以摘要代替 trace）并诊断作业…"),
        UiWord::GatherJobHelp => ("The folder `checkup-agent run -o` wrote on each host: {node} is the host's place in the list (from 0), {host} its name. Each rank's summary comes in place of its trace; then the trace of the rank the diagnosis follows.", "`checkup-agent run -o` 在每台主机上写入的文件夹：{node} 为主机在列表中的序号（从 0 开始），{host} 为主机名。每个 rank 以摘要代替 trace 复制回来；之后再复制诊断所跟踪的 rank 的 trace。"),
        UiWord::FleetLegend => ("Each GPU's last minute: solid, GPU-Util (NVML); dashed, SM active (GPM). Then its readings now: GPU-Util, SM active, power, SM clock, memory in use.", "每块 GPU 最近一分钟：实线为 GPU-Util（NVML），虚线为 SM 活跃度（GPM）。右侧为当前读数：GPU-Util、SM 活跃度、功耗、SM 时钟、已用显存。"),
        UiWord::NewCheckup => ("New checkup on this host", "在此主机上新建体检"),
        UiWord::Checking => ("Checking the environment…", "正在检查环境…"),
        UiWord::OpenRecording => ("Open a recording", "打开记录"),
        UiWord::Open => ("Open", "打开"),
        UiWord::Analysing => ("analysing", "正在分析"),
        UiWord::NoChecks => ("No environment check for this checkup.", "这次体检没有环境检查。"),
        UiWord::Interpreter => ("Training interpreter (the Python of its venv or conda env)", "训练所用的解释器（其 venv 或 conda 环境中的 Python）"),
        UiWord::CheckAgain => ("Check again with it", "用它重新检查"),
        UiWord::Check => ("check", "检查项"),
        UiWord::Value => ("value", "值"),
        UiWord::Meaning => ("what it means", "含义"),
        UiWord::Fix => ("fix", "修复"),
        UiWord::Pass => ("pass", "通过"),
        UiWord::Warn => ("warn", "警告"),
        UiWord::Fail => ("fail", "失败"),
        UiWord::Unknown => ("unknown", "未知"),
        UiWord::ConnectToSample => ("Connect to a GPU host to sample it live.", "连接 GPU 主机后即可实时采样。"),
        UiWord::Seconds => ("Seconds", "秒数"),
        UiWord::Job => ("Job", "任务"),
        UiWord::StartSampling => ("Start sampling", "开始采样"),
        UiWord::Stop => ("Stop", "停止"),
        UiWord::TimeLeft => ("left", "剩余"),
        UiWord::Samples => ("samples", "个样本"),
        UiWord::Reconnects => ("reconnects, no samples lost", "次重连，样本无丢失"),
        UiWord::NoSamples => ("No samples yet.", "还没有样本。"),
        UiWord::Starting => ("starting", "正在启动"),
        UiWord::ErrUnreachable => ("Cannot reach {subject}. Check the host name and that `ssh {subject}` works from a terminal.", "无法连接 {subject}。请检查主机名，并确认在终端中可以执行 `ssh {subject}`。"),
        UiWord::ErrAuthRefused => ("{subject} refused the login. The app logs in with your SSH keys and ssh-agent (no password prompts): add a key with `ssh-copy-id {subject}` or load it with `ssh-add`.", "{subject} 拒绝登录。本应用使用你的 SSH 密钥和 ssh-agent 登录（不会提示输入密码）：请用 `ssh-copy-id {subject}` 添加密钥，或用 `ssh-add` 加载密钥。"),
        UiWord::ErrHostKey => ("{subject}'s host key is not known or has changed. Connect once with `ssh {subject}` in a terminal to check and accept the key.", "{subject} 的主机密钥未知或已变更。请先在终端中执行一次 `ssh {subject}`，核对并接受该密钥。"),
        UiWord::ErrUnsupportedHost => ("{subject} runs {detail}; the agent is built for Linux x86-64.", "{subject} 运行的是 {detail}；agent 只支持 Linux x86-64。"),
        UiWord::ErrNoAgentBinary => ("No agent binary at {subject}: build it with `cargo build -p checkup-agent` or set GPU_CHECKUP_AGENT.", "在 {subject} 找不到 agent 程序：请用 `cargo build -p checkup-agent` 构建，或设置 GPU_CHECKUP_AGENT。"),
        UiWord::ErrAgentDidNotStart => ("The agent did not start on the host. Connect again; if it fails again, the details below say why (include them when you report it).", "agent 未能在主机上启动。请重新连接；如果仍然失败，下方的详情说明了原因（报告问题时请附上）。"),
        UiWord::ErrAgentGone => ("The agent stopped (it crashed or was killed); connect again to restart it.", "agent 已停止（崩溃或被终止）；请重新连接以重启它。"),
        UiWord::ErrAgentUnreachable => ("The agent at {subject} is not answering; if you forwarded it yourself, check the tunnel is still up.", "{subject} 上的 agent 没有响应；如果端口是你自己转发的，请检查隧道是否仍然连通。"),
        UiWord::ErrSshFailed => ("The SSH connection to {subject} failed. Check that `ssh {subject}` works from a terminal, then connect again.", "到 {subject} 的 SSH 连接失败。请确认在终端中可以执行 `ssh {subject}`，然后重新连接。"),
        UiWord::ErrNoSshClient => ("The system's `ssh` program could not be started: install OpenSSH (Debian and Ubuntu: `apt install openssh-client`).", "无法启动系统的 `ssh` 程序：请安装 OpenSSH（Debian 和 Ubuntu：`apt install openssh-client`）。"),
        UiWord::ErrProtocol => ("The agent's answer was not understood; the app and the agent may be different versions. Connect again: the app installs its own agent on SSH hosts.", "无法理解 agent 的回应；应用与 agent 的版本可能不一致。请重新连接：应用会在 SSH 主机上安装与自己配套的 agent。"),
        UiWord::ErrFile => ("Cannot read or write {subject}: check that it exists and that you may use it.", "无法读写 {subject}：请确认它存在并且你有权限使用。"),
        UiWord::Details => ("Details", "详情"),
        UiWord::GpuProblemNoDriver => ("No GPU readings: the NVIDIA driver is not installed or not loaded on this host. Host sampling still works; to check a GPU, install the driver or connect to a GPU host.", "没有 GPU 读数：这台主机没有安装或没有加载 NVIDIA 驱动。主机采样仍可使用；要检查 GPU，请安装驱动或连接一台 GPU 主机。"),
        UiWord::GpuProblemNvml => ("No GPU readings: the NVIDIA driver did not answer the agent. Run `nvidia-smi` on the host: if it fails too, the driver needs attention (often a reboot after an update).", "没有 GPU 读数：NVIDIA 驱动没有响应 agent。请在主机上运行 `nvidia-smi`：如果它也失败，说明驱动需要处理（更新后常需重启）。"),
        UiWord::GpuProblemNoNvmlBuild => ("No GPU readings: this agent was built without NVIDIA support. Use the agent the app installs.", "没有 GPU 读数：这个 agent 构建时未包含 NVIDIA 支持。请使用应用安装的 agent。"),
        UiWord::ErrUnauthorized => ("The agent refused the token: check you copied the token of this agent (its token file).", "agent 拒绝了令牌：请确认复制的是这个 agent 的令牌（它的令牌文件）。"),
        UiWord::ErrNoHost => ("No GPU host connected: pick this computer, an SSH host or a forwarded agent first.", "尚未连接 GPU 主机：请先选择本机、SSH 主机或已转发的 agent。"),
        UiWord::ErrPromSeveralHosts => ("The range holds GPU metrics of several hosts ({subject}): type one of them in the host field.", "该时间范围内有多台主机的 GPU 指标（{subject}）：请在主机一栏填写其中一台。"),
        UiWord::ErrPromUnknownHost => ("Prometheus has no GPU metrics from {subject} in the range; hosts that have them: {detail}.", "Prometheus 在该时间范围内没有 {subject} 的 GPU 指标；有指标的主机：{detail}。"),
        UiWord::ErrPromUnreachable => ("Cannot reach Prometheus at {subject}: check the address (http://HOST:9090) and that this computer can reach it.", "无法连接 {subject} 上的 Prometheus：请检查地址（http://HOST:9090），并确认本机能访问它。"),
        UiWord::ErrPromNoMetrics => ("Prometheus at {subject} has no DCGM-exporter GPU metrics for this host in the range: check the time range, the host's name (its Hostname or instance label) and that DCGM-exporter is scraped.", "{subject} 上的 Prometheus 在该时间范围内没有此主机的 DCGM-exporter GPU 指标：请检查时间范围、主机名（Hostname 或 instance 标签），以及 DCGM-exporter 是否被抓取。"),
        UiWord::ErrPromBadTime => ("The time range's “{subject}” does not read: give Unix seconds, RFC 3339 (2026-12-03T04:00:00Z), now or now-30m, and a duration as 90s, 30m, 1h30m or 2d.", "时间范围中的“{subject}”无法识别：请填写 Unix 秒、RFC 3339（2026-12-03T04:00:00Z）、now 或 now-30m；时长写作 90s、30m、1h30m 或 2d。"),
        UiWord::ErrPromEmptyRange => ("The time range is empty: its start must come before its end.", "时间范围为空：起始时间必须早于结束时间。"),
        UiWord::ErrPromBadUrl => ("“{subject}” is not a Prometheus address: give it with its scheme, as http://HOST:9090.", "“{subject}”不是 Prometheus 地址：请带上协议填写，如 http://HOST:9090。"),
        UiWord::ErrPromNotPrometheus => ("{subject} did not answer as Prometheus's HTTP API does: is it the Prometheus server's address (port 9090 by default), with any path it is served under? Its answer is below.", "{subject} 的应答不是 Prometheus HTTP API 的应答：请确认这是 Prometheus 服务器的地址（默认端口 9090），并带上它所在的路径。它的应答见下方。"),
        UiWord::ErrPromRefused => ("Prometheus at {subject} refused the query; its reason is below. A timeout or too many points per series asks for a shorter time range.", "{subject} 上的 Prometheus 拒绝了查询，原因见下方。若是超时或每条序列的点数过多，请缩短时间范围。"),
        UiWord::ErrPromUnknownGpu => ("The host has no GPU {subject} in the range; its GPUs there: {detail}. Leave the GPU field empty to read them all.", "该主机在此时间范围内没有 GPU {subject}；它有的 GPU：{detail}。GPU 一栏留空即读取全部。"),
        UiWord::ErrNoFleet => ("No hosts connected together: give several SSH hosts or a Slurm job first.", "尚未同时连接多台主机：请先填写多个 SSH 主机或一个 Slurm 作业。"),
        UiWord::ErrStaleDiagnosis => ("This checkup was stored by an older version of GPU Checkup, and its recording {subject} is no longer there to analyse again. Open the recording again (Open a recording), or run the checkup again.", "这次体检由旧版 GPU 体检保存，而它的记录 {subject} 已不在原处，无法重新分析。请重新打开该记录（打开记录），或重新做一次体检。"),
        UiWord::ErrNoGpuData => ("Only host samples: nothing was recorded on a GPU (the host has no NVIDIA driver, or no GPU was sampled), so there is nothing to diagnose.", "只有主机采样：没有记录到任何 GPU 数据（主机没有 NVIDIA 驱动，或没有采样任何 GPU），因此无法诊断。"),
        UiWord::StatusSampling => ("sampling", "正在采样"),
        UiWord::Reconnecting => ("reconnecting", "正在重连"),
        UiWord::WhyStreamDropped => ("the sample stream dropped", "样本流中断"),
        UiWord::WhyStopUnanswered => ("the agent did not answer the stop", "agent 未响应停止请求"),
        UiWord::WhyConnectionDropped => ("the connection dropped", "连接中断"),
        UiWord::Running => ("running", "运行中"),
        UiWord::Done => ("done", "完成"),
        UiWord::Failed => ("failed", "失败"),
        UiWord::ConnectToProfile => ("Connect to a GPU host to profile a training command.", "连接 GPU 主机后即可分析训练命令。"),
        UiWord::Command => ("Command", "命令"),
        UiWord::Cwd => ("Folder", "目录"),
        UiWord::SkipSteps => ("Skip steps", "跳过步数"),
        UiWord::ProfileSteps => ("Profile steps", "分析步数"),
        UiWord::StartProfiling => ("Profile it", "开始分析"),
        UiWord::StopProfiling => ("Stop the run", "停止运行"),
        UiWord::Steps => ("steps", "步"),
        UiWord::NoTrace => ("No profiler trace in this checkup yet.", "这次体检还没有性能分析数据。"),
        UiWord::NoDiagnosis => ("This checkup has no diagnosis yet: sample or profile it first.", "这次体检还没有诊断：请先采样或进行性能分析。"),
        UiWord::Primary => ("Primary bottleneck", "主要瓶颈"),
        UiWord::Window => ("Measurement window", "测量窗口"),
        UiWord::Confidence => ("confidence", "置信度"),
        UiWord::OfStepTime => ("of step time", "的步骤时间"),
        UiWord::Evidence => ("evidence", "证据"),
        UiWord::Source => ("source", "来源"),
        UiWord::Copy => ("Copy", "复制"),
        UiWord::Author => ("your name", "你的名字"),
        UiWord::Note => ("note for the review", "评审备注"),
        UiWord::AddNote => ("Add note", "添加备注"),
        UiWord::Critical => ("critical", "严重"),
        UiWord::Major => ("major", "主要"),
        UiWord::Minor => ("minor", "次要"),
        UiWord::Info => ("info", "提示"),
        UiWord::Export => ("Export", "导出"),
        UiWord::Preview => ("Preview", "预览"),
        UiWord::Written => ("Written:", "已写入："),
        UiWord::SetBaseline => ("Make this the project's baseline", "设为项目基线"),
        UiWord::Compare => ("Compare side by side", "并排对比"),
        UiWord::ComparePick => ("another checkup…", "另一次体检…"),
        UiWord::CompareGo => ("Compare", "对比"),
        UiWord::RerunCompare => ("Re-run and compare", "重新运行并对比"),
        UiWord::RerunHelp => ("After applying the fix: a new checkup of the same training on this host, compared with this one when it is done.", "应用修复后：在本主机上对同一训练做一次新的检查，完成后与本次对比。"),
        UiWord::RerunNeedsHost => ("Connect to the host the training runs on (left) to re-run it after the fix.", "先连接训练所在的主机（左侧），才能在修复后重新运行。"),
        UiWord::RerunTitle => ("{title}, after a fix", "{title}（修复后）"),
        UiWord::RerunOf => ("This checkup re-runs “{title}” to check a fix: start the training with the fix applied, record it as before, and its diagnosis opens with the comparison.", "本次检查是对“{title}”的复查，用于验证修复：启动已应用修复的训练，按之前的方式记录，诊断页会先给出两次的对比。"),
        UiWord::RerunOfDeleted => ("This checkup re-ran an earlier one that has since been deleted: there is nothing to compare it with.", "本次检查复查的那次检查已被删除，无从对比。"),
        UiWord::RerunCompared => ("Compared with the checkup before the fix", "与修复前的检查对比"),
        UiWord::Before => ("before", "之前"),
        UiWord::After => ("after", "之后"),
        UiWord::Change => ("change", "变化"),
    }
}

/// A word in `l`.
pub fn tr(l: Language, w: UiWord) -> &'static str {
    let (en, zh) = words(w);
    match l {
        Language::En => en,
        Language::Zh => zh,
    }
}

/// A wizard step's name (`2 Live sampling`).
pub fn step(l: Language, s: WizardStep) -> &'static str {
    tr(
        l,
        match s {
            WizardStep::Environment => UiWord::Environment,
            WizardStep::Sampling => UiWord::Sampling,
            WizardStep::Profiling => UiWord::Profiling,
            WizardStep::Diagnosis => UiWord::Diagnosis,
            WizardStep::Report => UiWord::Report,
        },
    )
}

/// A live phase's status.
pub fn live_status(l: Language, s: LiveStatus) -> &'static str {
    tr(
        l,
        match s {
            LiveStatus::Starting => UiWord::Starting,
            LiveStatus::Sampling => UiWord::StatusSampling,
            LiveStatus::Running => UiWord::Running,
            LiveStatus::Reconnecting => UiWord::Reconnecting,
            LiveStatus::Analysing => UiWord::Analysing,
            LiveStatus::Done => UiWord::Done,
            LiveStatus::Failed => UiWord::Failed,
        },
    )
}

/// Why a live phase reconnects.
pub fn reconnect_reason(l: Language, r: ReconnectReason) -> &'static str {
    tr(
        l,
        match r {
            ReconnectReason::StreamDropped => UiWord::WhyStreamDropped,
            ReconnectReason::StopUnanswered => UiWord::WhyStopUnanswered,
            ReconnectReason::ConnectionDropped => UiWord::WhyConnectionDropped,
        },
    )
}

/// A finding's severity, as the UI labels it.
pub fn severity(l: Language, s: Severity) -> &'static str {
    tr(
        l,
        match s {
            Severity::Info => UiWord::Info,
            Severity::Minor => UiWord::Minor,
            Severity::Major => UiWord::Major,
            Severity::Critical => UiWord::Critical,
        },
    )
}

/// The sentence of an error kind, with `{subject}` and `{detail}` slots.
fn error_word(k: ErrorKind) -> UiWord {
    match k {
        ErrorKind::Unreachable => UiWord::ErrUnreachable,
        ErrorKind::AuthRefused => UiWord::ErrAuthRefused,
        ErrorKind::HostKey => UiWord::ErrHostKey,
        ErrorKind::UnsupportedHost => UiWord::ErrUnsupportedHost,
        ErrorKind::NoAgentBinary => UiWord::ErrNoAgentBinary,
        ErrorKind::AgentDidNotStart => UiWord::ErrAgentDidNotStart,
        ErrorKind::AgentGone => UiWord::ErrAgentGone,
        ErrorKind::AgentUnreachable => UiWord::ErrAgentUnreachable,
        ErrorKind::Unauthorized => UiWord::ErrUnauthorized,
        ErrorKind::NoHost => UiWord::ErrNoHost,
        ErrorKind::NoFleet => UiWord::ErrNoFleet,
        ErrorKind::PromSeveralHosts => UiWord::ErrPromSeveralHosts,
        ErrorKind::PromUnknownHost => UiWord::ErrPromUnknownHost,
        ErrorKind::PromUnreachable => UiWord::ErrPromUnreachable,
        ErrorKind::PromNoMetrics => UiWord::ErrPromNoMetrics,
        ErrorKind::PromBadTime => UiWord::ErrPromBadTime,
        ErrorKind::PromEmptyRange => UiWord::ErrPromEmptyRange,
        ErrorKind::PromBadUrl => UiWord::ErrPromBadUrl,
        ErrorKind::PromNotPrometheus => UiWord::ErrPromNotPrometheus,
        ErrorKind::PromRefused => UiWord::ErrPromRefused,
        ErrorKind::PromUnknownGpu => UiWord::ErrPromUnknownGpu,
        ErrorKind::NoGpuData => UiWord::ErrNoGpuData,
        ErrorKind::StaleDiagnosis => UiWord::ErrStaleDiagnosis,
        ErrorKind::SshFailed => UiWord::ErrSshFailed,
        ErrorKind::NoSshClient => UiWord::ErrNoSshClient,
        ErrorKind::Protocol => UiWord::ErrProtocol,
        ErrorKind::File => UiWord::ErrFile,
    }
}

/// `w` with each `(slot, value)` filled in: the one place the UI's sentences get their
/// values, each through a function below that names its slots.
fn fill(l: Language, w: UiWord, slots: &[(&str, &str)]) -> String {
    let mut words = tr(l, w).to_owned();
    for (slot, value) in slots {
        words = words.replace(&format!("{{{slot}}}"), value);
    }
    words
}

/// "Next: 3 Profiling →".
pub fn next_step(l: Language, s: WizardStep) -> String {
    fill(l, UiWord::NextStep, &[("step", step(l, s))])
}

/// What a pointer reads on a chart: its time…
pub fn hover_time(l: Language, t: &str) -> String {
    fill(l, UiWord::HoverTime, &[("t", t)])
}

/// …and each series' value.
pub fn hover_value(l: Language, label: &str, value: &str, unit: &str) -> String {
    fill(
        l,
        UiWord::HoverValue,
        &[("label", label), ("value", value), ("unit", unit)],
    )
}

/// How many of the fleet's hosts are connected.
pub fn fleet_connected(l: Language, connected: usize, hosts: usize) -> String {
    fill(
        l,
        UiWord::FleetConnected,
        &[("n", &connected.to_string()), ("m", &hosts.to_string())],
    )
}

/// The fleet's job and where it stands.
pub fn fleet_job(l: Language, job: &str, state: &str) -> String {
    fill(l, UiWord::FleetJob, &[("job", job), ("state", state)])
}

/// The GPUs shown are a recording's, played back.
pub fn gpus_recorded(l: Language, path: &str) -> String {
    fill(l, UiWord::GpusRecorded, &[("path", path)])
}

/// The processes shown are a recording's, played back.
pub fn processes_recorded(l: Language, path: &str) -> String {
    fill(l, UiWord::ProcessesRecorded, &[("path", path)])
}

/// Profiling ended after `steps` steps.
pub fn arrived_after_profiling(l: Language, steps: u64) -> String {
    fill(
        l,
        UiWord::ArrivedAfterProfiling,
        &[("steps", &steps.to_string())],
    )
}

/// Sampling ended after `samples` samples over `seconds`.
pub fn arrived_after_sampling(l: Language, samples: u64, seconds: f64) -> String {
    fill(
        l,
        UiWord::ArrivedAfterSampling,
        &[
            ("samples", &samples.to_string()),
            ("seconds", &format!("{seconds:.0}")),
        ],
    )
}

/// The title of a checkup that re-runs `title`.
pub fn rerun_title(l: Language, title: &str) -> String {
    fill(l, UiWord::RerunTitle, &[("title", title)])
}

/// This checkup re-ran `title`.
pub fn rerun_of(l: Language, title: &str) -> String {
    fill(l, UiWord::RerunOf, &[("title", title)])
}

/// An error worded for a person: what happened and what to try, and apart from it what the
/// system or a library said (`details`, for a "details" fold: never the message alone).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorWords {
    /// What happened and what to try.
    pub words: String,
    /// What the system or a library said, verbatim.
    pub details: Option<String>,
}

/// An error from the backend in `l`: its kind worded from the catalogue with the subject
/// filled in; the detail in the sentence where the sentence names it (an operating system,
/// the agent's own words), else kept for the details fold. Errors of no kind the catalogue
/// words are shown as their message.
pub fn error_words(l: Language, e: &UiError) -> ErrorWords {
    match e.code.map(|k| tr(l, error_word(k))) {
        Some(words) => {
            let detail = e.detail.trim().trim_end_matches(['.', '。']);
            // What the sentence leaves out (a long path, a library's message) goes to the
            // details, so that nothing the backend said is lost.
            let apart: Vec<&str> = [("{subject}", e.subject.trim()), ("{detail}", detail)]
                .into_iter()
                .filter(|(slot, value)| !words.contains(slot) && !value.is_empty())
                .map(|(_, value)| value)
                .collect();
            ErrorWords {
                words: words
                    .replace("{subject}", &e.subject)
                    // The sentence puts its own full stop after the detail.
                    .replace("{detail}", detail),
                details: (!apart.is_empty()).then(|| apart.join(": ")),
            }
        }
        None => ErrorWords {
            words: e.message.clone(),
            details: None,
        },
    }
}

/// Why an agent has no GPU readings, in `l`.
pub fn gpu_problem_words(l: Language, p: &checkup_model::GpuProblem) -> ErrorWords {
    use checkup_model::GpuProblem;
    let (key, detail) = match p {
        GpuProblem::NoDriver { detail } => (UiWord::GpuProblemNoDriver, detail),
        GpuProblem::Nvml { detail } => (UiWord::GpuProblemNvml, detail),
        GpuProblem::NoNvmlInBuild => (UiWord::GpuProblemNoNvmlBuild, &String::new()),
    };
    ErrorWords {
        words: tr(l, key).to_owned(),
        details: (!detail.is_empty()).then(|| detail.clone()),
    }
}

/// What the app says when the history database could not be opened as it was.
pub fn store_notice_words(l: Language, n: &StoreNotice) -> String {
    let (key, slots): (UiWord, Vec<(&str, &str)>) = match n {
        StoreNotice::StartedAfresh {
            path,
            kept_as,
            detail,
        } => (
            UiWord::StoreStartedAfresh,
            vec![("path", path), ("kept_as", kept_as), ("detail", detail)],
        ),
        StoreNotice::ReadOnly {
            path,
            newer_version: true,
            ..
        } => (UiWord::StoreNewer, vec![("path", path)]),
        StoreNotice::ReadOnly { path, detail, .. } => (
            UiWord::StoreReadOnly,
            vec![("path", path), ("detail", detail)],
        ),
        StoreNotice::Temporary {
            path,
            temporary,
            detail,
        } => (
            UiWord::StoreTemporary,
            vec![("path", path), ("temporary", temporary), ("detail", detail)],
        ),
    };
    // The sentence puts its own full stop after the detail.
    let slots: Vec<(&str, &str)> = slots
        .into_iter()
        .map(|(slot, value)| (slot, value.trim_end_matches(['.', '。'])))
        .collect();
    fill(l, key, &slots)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_damaged_history_is_explained_with_where_the_old_file_was_kept() {
        let n = StoreNotice::StartedAfresh {
            path: "/home/a/checkups.db".into(),
            kept_as: "/home/a/checkups.db.damaged-1796000000".into(),
            detail: "file is not a database.".into(),
        };
        let en = store_notice_words(Language::En, &n);
        assert!(en.contains("(file is not a database)"), "{en}");
        assert!(
            en.contains("kept unchanged as /home/a/checkups.db.damaged-1796000000"),
            "{en}"
        );
        let zh = store_notice_words(Language::Zh, &n);
        assert!(
            zh.starts_with("无法读取体检记录 /home/a/checkups.db（file is not a database）。"),
            "{zh}"
        );
        assert!(!zh.contains('{'), "{zh}");
    }

    #[test]
    fn a_refused_login_is_worded_in_chinese_with_the_host_filled_in_and_ssh_s_words_apart() {
        let e = UiError {
            code: Some(ErrorKind::AuthRefused),
            subject: "gpu-box".into(),
            detail: "Permission denied (publickey).".into(),
            message: "gpu-box refused the login".into(),
        };
        let zh = error_words(Language::Zh, &e);
        assert!(zh.words.starts_with("gpu-box 拒绝登录。"), "{zh:?}");
        assert!(zh.words.contains("`ssh-copy-id gpu-box`"), "{zh:?}");
        assert!(!zh.words.contains("Permission denied"), "{zh:?}");
        assert_eq!(zh.details.as_deref(), Some("Permission denied (publickey)"));
        let unknown = UiError::plain("disk full");
        assert_eq!(
            error_words(Language::Zh, &unknown),
            ErrorWords {
                words: "disk full".into(),
                details: None
            }
        );
    }

    #[test]
    fn a_detail_the_sentence_names_stays_in_it() {
        let e = UiError {
            code: Some(ErrorKind::UnsupportedHost),
            subject: "mac".into(),
            detail: "Darwin arm64".into(),
            message: String::new(),
        };
        let en = error_words(Language::En, &e);
        assert_eq!(
            en.words,
            "mac runs Darwin arm64; the agent is built for Linux x86-64."
        );
        assert_eq!(en.details, None);
    }

    #[test]
    fn no_host_error_shows_a_library_message_in_its_sentence() {
        // Every error kind the connection names is worded without a library's message
        // inline, but for those whose detail is part of what to say.
        // The hosts a Prometheus server has are what to try, not a library's words.
        let inline = [
            ErrorKind::UnsupportedHost,
            ErrorKind::PromUnknownHost,
            ErrorKind::PromUnknownGpu,
        ];
        for kind in ErrorKind::ALL {
            let (en, zh) = words(error_word(kind));
            if !inline.contains(&kind) {
                assert!(
                    !en.contains("{detail}") && !zh.contains("{detail}"),
                    "{kind:?}"
                );
            }
        }
        let no_driver = checkup_model::GpuProblem::NoDriver {
            detail: "libnvidia-ml.so.1 could not be loaded (a libloading error occurred)".into(),
        };
        let w = gpu_problem_words(Language::En, &no_driver);
        assert!(w
            .words
            .starts_with("No GPU readings: the NVIDIA driver is not installed"));
        assert!(w.details.unwrap().contains("libloading"));
    }

    #[test]
    fn every_sentence_with_slots_is_filled_in_both_languages() {
        for l in [Language::En, Language::Zh] {
            let filled = [
                next_step(l, WizardStep::Profiling),
                hover_time(l, "1.5"),
                hover_value(l, "GPU-Util", "93", "%"),
                fleet_connected(l, 3, 4),
                fleet_job(l, "pid 4242", "running"),
                gpus_recorded(l, "/runs/a"),
                processes_recorded(l, "/runs/a"),
                arrived_after_profiling(l, 120),
                arrived_after_sampling(l, 600, 61.0),
                rerun_title(l, "resnet"),
                rerun_of(l, "resnet"),
            ];
            for words in filled {
                assert!(!words.contains('{') && !words.contains('}'), "{words}");
            }
        }
        assert_eq!(
            next_step(Language::En, WizardStep::Profiling),
            "Next: 3 Profiling →"
        );
        assert_eq!(
            fleet_connected(Language::Zh, 3, 4),
            tr(Language::Zh, UiWord::FleetConnected)
                .replace("{n}", "3")
                .replace("{m}", "4")
        );
    }

    #[test]
    fn every_word_is_translated_but_names_written_alike() {
        // The compiler sees that every word has both languages; this, that neither is
        // empty and the Chinese is not the English left in place.
        for w in UiWord::ALL {
            let (en, zh) = words(w);
            assert!(!en.is_empty() && !zh.is_empty(), "{w:?}");
            if w != UiWord::Ssh {
                assert_ne!(en, zh, "{w:?} is not translated");
            }
        }
    }
}
