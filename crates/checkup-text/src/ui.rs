//! The app's own words (buttons, step names, help, errors), keyed by a stable name: English
//! and Simplified Chinese, both complete (the UI's test checks every key it uses is here).

use checkup_model::{Language, StoreNotice, UiError};

/// (key, English, Simplified Chinese)
pub const CATALOGUE: &[(&str, &str, &str)] = &[
    ("app_title", "GPU Checkup", "GPU 体检"),
    ("store_started_afresh", "The checkup history {path} could not be read ({detail}). It was kept unchanged as {kept_as} and a new, empty history was started: checkups from now on are saved as usual.", "无法读取体检记录 {path}（{detail}）。原文件已原样保留为 {kept_as}，并已新建一份空的体检记录：此后的体检照常保存。"),
    ("store_read_only", "The checkup history {path} cannot be written ({detail}), so it is shown read-only: you can open every checkup, but new ones and changes are not saved. Check the file's permissions and the free disk space, then restart GPU Checkup.", "体检记录 {path} 无法写入（{detail}），因此以只读方式打开：可以查看所有体检，但新体检和修改不会保存。请检查文件权限和磁盘剩余空间，然后重启 GPU 体检。"),
    ("store_newer", "The checkup history {path} was written by a newer version of GPU Checkup, so this version shows it read-only and saves nothing in it. Update GPU Checkup to work with it again.", "体检记录 {path} 由更新版本的 GPU 体检写入，本版本以只读方式显示，不会写入任何内容。请升级 GPU 体检后再继续使用。"),
    ("store_temporary", "The checkup history {path} is locked by another program, probably another GPU Checkup window ({detail}). It was left alone; this session's checkups are kept in {temporary} instead. Close the other one and restart to see your history.", "体检记录 {path} 被另一个程序锁定，可能是另一个 GPU 体检窗口（{detail}）。原文件未作改动；本次的体检改存到 {temporary}。请关闭另一个窗口并重启，即可看到原来的记录。"),
    ("pick", "Pick a checkup on the left, or connect to a GPU host to start one (the demo checkups are real H200 training recordings).", "从左侧选择一次体检，或连接 GPU 主机开始新的体检（内置的演示体检来自真实的 H200 训练记录）。"),
    ("environment", "1 Environment", "1 环境"),
    ("sampling", "2 Live sampling", "2 实时采样"),
    ("profiling", "3 Profiling", "3 性能分析"),
    ("diagnosis", "4 Diagnosis", "4 诊断"),
    ("report", "5 Report", "5 报告"),
    ("job_help", "The job is the training to watch. Its PID (process ID) is the number the system gives a running program: pick the training from the processes on the GPUs below, or find it on the host with `nvidia-smi` or `ps aux | grep python`. `gpu 0` watches one GPU whatever runs on it; left empty, the whole host is watched.", "“任务”是要观察的训练。PID（进程号）是系统分配给正在运行的程序的编号：可以从下面正在使用 GPU 的进程中选出训练进程，也可以在主机上用 `nvidia-smi` 或 `ps aux | grep python` 查找。填 `gpu 0` 表示观察一块 GPU，不论上面运行什么；留空则观察整台主机。"),
    ("find_processes", "Show the processes on the GPUs", "显示正在使用 GPU 的进程"),
    ("no_gpu_processes", "No process is using a GPU right now: start the training first, then show the processes again (or watch by GPU, or the whole host).", "目前没有进程在使用 GPU：请先启动训练，然后再次显示进程（或者按 GPU 观察，或观察整台主机）。"),
    ("use_this", "Use", "选用"),
    ("gpu_memory", "GPU memory", "显存"),
    ("processes_recorded", "These are the processes of the recording this agent plays back ({path}), not of this host.", "这些是该 agent 正在回放的记录（{path}）中的进程，而不是本主机的进程。"),
    ("hover_time", "t = {t} s", "时间 {t} 秒"),
    ("hover_value", "{label}: {value} {unit}", "{label}：{value} {unit}"),
    ("zoom_help", "Point at a curve to read its values; drag across the chart to zoom in on those seconds.", "把鼠标指向曲线可读出数值；在图上横向拖动可放大那段时间。"),
    ("zoom_reset", "Whole run", "整个运行"),
    ("next_step", "Next: {step} →", "下一步：{step} →"),
    ("arrived_after_sampling", "Sampling finished: {samples} samples over {seconds} s. Below is what they show; profiling a few steps (step 3) tells the cause when they cannot.", "采样完成：{seconds} 秒内共 {samples} 个样本。下面是它们显示的情况；如果看不出原因，请对几个训练步骤做性能分析（第 3 步）。"),
    ("arrived_after_profiling", "Profiling finished: {steps} steps recorded. Below is the diagnosis.", "性能分析完成：共记录 {steps} 个训练步骤。下面是诊断。"),
    ("intro_environment", "Checks the GPU host before anything else: the driver and CUDA versions, whether torch in your training's environment sees the GPU and was built for it, persistence mode, the PCIe link, ECC errors, the power limit and how many CPU cores the DataLoader can use. A problem here slows every run whatever the model does, so fix failures first.", "在做任何其他事之前先检查 GPU 主机：驱动和 CUDA 版本、训练所用环境中的 torch 能否看到 GPU 并且是为它编译的、持久模式、PCIe 链路、ECC 错误、功率上限，以及 DataLoader 能用多少个 CPU 核心。这里的问题会拖慢每一次训练，与模型无关，所以请先修复失败项。"),
    ("intro_environment_next", "Takes a few seconds. Next: watch the running training (step 2), or run a few profiled steps of it (step 3).", "只需几秒。下一步：观察正在运行的训练（第 2 步），或对它的几个训练步骤做性能分析（第 3 步）。"),
    ("intro_sampling", "Watches the GPU and the host while your training runs, without touching it: GPU utilisation, power, clocks and the CPU of the training's processes, ten times a second. It shows whether the GPU is kept busy and when it idles. In Job, enter the PID of the training process (on the host, nvidia-smi lists the python process using the GPU), or gpu 0 to watch one GPU, or leave it empty.", "在训练运行时观察 GPU 和主机，不改动训练本身：每秒十次记录 GPU 利用率、功率、频率以及训练进程的 CPU。它说明 GPU 是否一直在忙、何时空闲。在“任务”中填写训练进程的 PID（在主机上运行 nvidia-smi，可以看到使用 GPU 的 python 进程），或填写 gpu 0 只观察一块 GPU，也可以留空。"),
    ("intro_sampling_next", "Sample for a minute or more once the training is past its start-up. Next: profile a few steps (step 3) to learn the cause, or open the diagnosis (step 4).", "等训练过了启动阶段后，采样一分钟或更久。下一步：分析几个训练步骤（第 3 步）以找出原因，或查看诊断（第 4 步）。"),
    ("intro_profiling", "Runs your training command with GPU Checkup's probe, without changing your code: it times every step and its wait for data, notes what the training is (DataLoader, optimizer, compile, precision) and records 8 steps with the PyTorch profiler. That tells the cause: input pipeline, kernel launches, synchronisation, copies, communication or periodic stalls.", "用 GPU 体检的探针运行你的训练命令，无需修改代码：它为每一步及其等待数据的时间计时，记下训练的设置（DataLoader、优化器、编译、精度），并用 PyTorch 分析器记录 8 个步骤。由此可以找出原因：输入管线、内核启动、同步、拷贝、通信或周期性停顿。"),
    ("intro_profiling_next", "Takes as long as the command runs: a short run of your real training, 100 to 300 steps, is enough. Next: the diagnosis (step 4).", "耗时与命令运行时间相同：用你的真实训练命令短跑 100 到 300 步即可。下一步：诊断（第 4 步）。"),
    ("intro_diagnosis", "What limits this run and what to change first. The top says how long a step takes and where the time goes, then the fixes ranked by the time they would save, each with code to paste. The evidence behind each finding is below it.", "这次训练受什么限制、首先该改什么。顶部给出每步耗时和时间花在哪里，然后是按可节省时间排序的修复，每项都附有可粘贴的代码。每个发现的证据列在它的下方。"),
    ("intro_diagnosis_next", "Apply the first fix, then press Re-run and compare under it: a new checkup of the same training opens, and its diagnosis shows what the fix gained.", "应用第一项修复后，点击它下方的“重新运行并对比”：会打开同一训练的新一次体检，其诊断页给出修复带来的收益。"),
    ("intro_report", "A report for your team's review: page 1 holds the verdict, the headline figures, the fixes with their expected gains and any environment problems; the evidence, charts and run facts follow. Export it as PDF, HTML or Markdown.", "供团队评审的报告：第 1 页包含结论、关键数字、修复及其预期收益，以及环境问题；之后是证据、图表和运行信息。可导出为 PDF、HTML 或 Markdown。"),
    ("intro_report_next", "Mark a healthy run as the baseline, then compare later checkups with it to see what changed.", "把一次健康的训练设为基线，之后的体检都可以与它对比，看看有什么变化。"),
    ("history", "Checkups", "体检记录"),
    ("demo", "demo", "演示"),
    ("pick_folder", "Folder…", "文件夹…"),
    ("pick_file", "File…", "文件…"),
    ("recording_host", "recording", "记录"),
    ("baseline", "baseline", "基线"),
    ("host", "GPU host", "GPU 主机"),
    ("no_host", "Not connected.", "未连接。"),
    ("no_gpu", "no GPU", "没有 GPU"),
    ("replaying", "samples replayed from the recording", "采样回放自记录"),
    ("this_computer", "This computer", "本机"),
    ("ssh", "SSH", "SSH"),
    ("forwarded", "Agent already forwarded", "已转发的 agent"),
    ("token", "token", "令牌"),
    ("connect", "Connect", "连接"),
    ("connecting", "Connecting…", "正在连接…"),
    ("prometheus", "GPU metrics in Prometheus", "Prometheus 中的 GPU 指标"),
    ("prom_host", "host (Hostname or instance label)", "主机（Hostname 或 instance 标签）"),
    ("prom_gpus", "GPUs: 0, 1 (all when empty)", "GPU：0, 1（留空为全部）"),
    ("prom_from", "from: now-2h, RFC 3339", "起始：now-2h 或 RFC 3339"),
    ("prom_to", "to: now", "结束：now"),
    ("prom_last", "or the last: 30m (the default)", "或最近：30m（默认）"),
    ("read_prometheus", "Read and diagnose", "读取并诊断"),
    ("reading_prometheus", "Reading the GPU metrics from Prometheus…", "正在从 Prometheus 读取 GPU 指标…"),
    ("several_hosts", "Several hosts", "多台主机"),
    ("connect_fleet", "Connect all", "全部连接"),
    ("or_slurm_job", "or the nodes of a Slurm job, through its login host:", "或通过登录节点连接一个 Slurm 作业的所有节点："),
    ("slurm_job", "job id", "作业 ID"),
    ("slurm_login", "login host", "登录节点"),
    ("connect_slurm", "Connect the job's nodes", "连接作业的节点"),
    ("connecting_fleet", "Connecting to the hosts (uploading and starting each agent where needed)…", "正在连接各主机（必要时上传并启动 agent）…"),
    ("fleet_connected", "Several hosts: {n} of {m} connected", "多台主机：已连接 {n}/{m}"),
    ("intro_fleet", "The hosts of one job side by side. Compare their environments first: one host on another driver, with persistence off, a narrower PCIe link or a lower power limit is often the one the whole job waits for. Then watch every GPU at once while the job runs; each host's samples are kept as a checkup of that host.", "同一作业的各主机并列显示。先比较它们的环境：驱动不同、持久模式关闭、PCIe 链路更窄或功耗上限更低的主机，往往就是整个作业在等待的那一台。然后在作业运行时同时观察所有 GPU；每台主机的采样都会保存为该主机的一次体检。"),
    ("fleet_job", "Slurm job {job} ({state})", "Slurm 作业 {job}（{state}）"),
    ("check_fleet", "Compare environments", "比较环境"),
    ("checking_fleet", "Checking every host…", "正在检查每台主机…"),
    ("watch_fleet", "Watch every GPU", "观察所有 GPU"),
    ("disconnect_fleet", "Disconnect all", "全部断开"),
    ("fleet_same", "No host differs from the others in driver, GPU model, persistence mode, PCIe link, power limit or PyTorch.", "各主机在驱动、GPU 型号、持久模式、PCIe 链路、功耗上限和 PyTorch 上没有差异。"),
    ("fleet_differences", "What stands out between the hosts", "主机之间的差异"),
    ("col_host", "Host", "主机"),
    ("col_agent", "Agent", "Agent 状态"),
    ("col_driver", "Driver", "驱动"),
    ("col_gpus", "GPUs", "GPU"),
    ("col_not_passed", "Checks not passed", "未通过的检查"),
    ("gpus_recorded", "GPUs and driver from the recording {path}", "GPU 与驱动来自记录 {path}"),
    ("open_its_checkup", "Open its checkup", "打开其体检"),
    ("throttled", "throttled", "降频"),
    ("gather_job", "Diagnose the job's run folders", "诊断作业的运行文件夹"),
    ("gathering_job", "Copying each host's run folder (summaries in place of traces) and diagnosing the job…", "正在复制各主机的运行文件夹（以摘要代替 trace）并诊断作业…"),
    ("gather_job_help", "The folder `checkup-agent run -o` wrote on each host: {node} is the host's place in the list (from 0), {host} its name. Each rank's summary comes in place of its trace; then the trace of the rank the diagnosis follows.", "`checkup-agent run -o` 在每台主机上写入的文件夹：{node} 为主机在列表中的序号（从 0 开始），{host} 为主机名。每个 rank 以摘要代替 trace 复制回来；之后再复制诊断所跟踪的 rank 的 trace。"),
    ("fleet_legend", "Each GPU's last minute: solid, GPU-Util (NVML); dashed, SM active (GPM). Then its readings now: GPU-Util, SM active, power, SM clock, memory in use.", "每块 GPU 最近一分钟：实线为 GPU-Util（NVML），虚线为 SM 活跃度（GPM）。右侧为当前读数：GPU-Util、SM 活跃度、功耗、SM 时钟、已用显存。"),
    ("new_checkup", "New checkup on this host", "在此主机上新建体检"),
    ("checking", "Checking the environment…", "正在检查环境…"),
    ("open_recording", "Open a recording", "打开记录"),
    ("open", "Open", "打开"),
    ("analysing", "analysing", "正在分析"),
    ("no_checks", "No environment check for this checkup.", "这次体检没有环境检查。"),
    ("interpreter", "Training interpreter (the Python of its venv or conda env)", "训练所用的解释器（其 venv 或 conda 环境中的 Python）"),
    ("check_again", "Check again with it", "用它重新检查"),
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
    ("err_unreachable", "Cannot reach {subject}. Check the host name and that `ssh {subject}` works from a terminal.", "无法连接 {subject}。请检查主机名，并确认在终端中可以执行 `ssh {subject}`。"),
    ("err_auth_refused", "{subject} refused the login. The app logs in with your SSH keys and ssh-agent (no password prompts): add a key with `ssh-copy-id {subject}` or load it with `ssh-add`.", "{subject} 拒绝登录。本应用使用你的 SSH 密钥和 ssh-agent 登录（不会提示输入密码）：请用 `ssh-copy-id {subject}` 添加密钥，或用 `ssh-add` 加载密钥。"),
    ("err_host_key", "{subject}'s host key is not known or has changed. Connect once with `ssh {subject}` in a terminal to check and accept the key.", "{subject} 的主机密钥未知或已变更。请先在终端中执行一次 `ssh {subject}`，核对并接受该密钥。"),
    ("err_unsupported_host", "{subject} runs {detail}; the agent is built for Linux x86-64.", "{subject} 运行的是 {detail}；agent 只支持 Linux x86-64。"),
    ("err_no_agent_binary", "No agent binary at {subject}: build it with `cargo build -p checkup-agent` or set GPU_CHECKUP_AGENT.", "在 {subject} 找不到 agent 程序：请用 `cargo build -p checkup-agent` 构建，或设置 GPU_CHECKUP_AGENT。"),
    ("err_agent_did_not_start", "The agent did not start on the host. Connect again; if it fails again, the details below say why (include them when you report it).", "agent 未能在主机上启动。请重新连接；如果仍然失败，下方的详情说明了原因（报告问题时请附上）。"),
    ("err_agent_gone", "The agent stopped (it crashed or was killed); connect again to restart it.", "agent 已停止（崩溃或被终止）；请重新连接以重启它。"),
    ("err_agent_unreachable", "The agent at {subject} is not answering; if you forwarded it yourself, check the tunnel is still up.", "{subject} 上的 agent 没有响应；如果端口是你自己转发的，请检查隧道是否仍然连通。"),
    ("err_ssh_failed", "The SSH connection to {subject} failed. Check that `ssh {subject}` works from a terminal, then connect again.", "到 {subject} 的 SSH 连接失败。请确认在终端中可以执行 `ssh {subject}`，然后重新连接。"),
    ("err_no_ssh_client", "The system's `ssh` program could not be started: install OpenSSH (Debian and Ubuntu: `apt install openssh-client`).", "无法启动系统的 `ssh` 程序：请安装 OpenSSH（Debian 和 Ubuntu：`apt install openssh-client`）。"),
    ("err_protocol", "The agent's answer was not understood; the app and the agent may be different versions. Connect again: the app installs its own agent on SSH hosts.", "无法理解 agent 的回应；应用与 agent 的版本可能不一致。请重新连接：应用会在 SSH 主机上安装与自己配套的 agent。"),
    ("err_file", "Cannot read or write {subject}: check that it exists and that you may use it.", "无法读写 {subject}：请确认它存在并且你有权限使用。"),
    ("details", "Details", "详情"),
    ("gpu_problem_no_driver", "No GPU readings: the NVIDIA driver is not installed or not loaded on this host. Host sampling still works; to check a GPU, install the driver or connect to a GPU host.", "没有 GPU 读数：这台主机没有安装或没有加载 NVIDIA 驱动。主机采样仍可使用；要检查 GPU，请安装驱动或连接一台 GPU 主机。"),
    ("gpu_problem_nvml", "No GPU readings: the NVIDIA driver did not answer the agent. Run `nvidia-smi` on the host: if it fails too, the driver needs attention (often a reboot after an update).", "没有 GPU 读数：NVIDIA 驱动没有响应 agent。请在主机上运行 `nvidia-smi`：如果它也失败，说明驱动需要处理（更新后常需重启）。"),
    ("gpu_problem_no_nvml_build", "No GPU readings: this agent was built without NVIDIA support. Use the agent the app installs.", "没有 GPU 读数：这个 agent 构建时未包含 NVIDIA 支持。请使用应用安装的 agent。"),
    ("err_unauthorized", "The agent refused the token: check you copied the token of this agent (its token file).", "agent 拒绝了令牌：请确认复制的是这个 agent 的令牌（它的令牌文件）。"),
    ("err_no_host", "No GPU host connected: pick this computer, an SSH host or a forwarded agent first.", "尚未连接 GPU 主机：请先选择本机、SSH 主机或已转发的 agent。"),
    ("err_prom_several_hosts", "The range holds GPU metrics of several hosts ({subject}): type one of them in the host field.", "该时间范围内有多台主机的 GPU 指标（{subject}）：请在主机一栏填写其中一台。"),
    ("err_prom_unknown_host", "Prometheus has no GPU metrics from {subject} in the range; hosts that have them: {detail}.", "Prometheus 在该时间范围内没有 {subject} 的 GPU 指标；有指标的主机：{detail}。"),
    ("err_prom_unreachable", "Cannot reach Prometheus at {subject}: check the address (http://HOST:9090) and that this computer can reach it.", "无法连接 {subject} 上的 Prometheus：请检查地址（http://HOST:9090），并确认本机能访问它。"),
    ("err_prom_no_metrics", "Prometheus at {subject} has no DCGM-exporter GPU metrics for this host in the range: check the time range, the host's name (its Hostname or instance label) and that DCGM-exporter is scraped.", "{subject} 上的 Prometheus 在该时间范围内没有此主机的 DCGM-exporter GPU 指标：请检查时间范围、主机名（Hostname 或 instance 标签），以及 DCGM-exporter 是否被抓取。"),
    ("err_prom_bad_time", "The time range's “{subject}” does not read: give Unix seconds, RFC 3339 (2026-12-03T04:00:00Z), now or now-30m, and a duration as 90s, 30m, 1h30m or 2d.", "时间范围中的“{subject}”无法识别：请填写 Unix 秒、RFC 3339（2026-12-03T04:00:00Z）、now 或 now-30m；时长写作 90s、30m、1h30m 或 2d。"),
    ("err_prom_empty_range", "The time range is empty: its start must come before its end.", "时间范围为空：起始时间必须早于结束时间。"),
    ("err_prom_bad_url", "“{subject}” is not a Prometheus address: give it with its scheme, as http://HOST:9090.", "“{subject}”不是 Prometheus 地址：请带上协议填写，如 http://HOST:9090。"),
    ("err_prom_not_prometheus", "{subject} did not answer as Prometheus's HTTP API does: is it the Prometheus server's address (port 9090 by default), with any path it is served under? Its answer is below.", "{subject} 的应答不是 Prometheus HTTP API 的应答：请确认这是 Prometheus 服务器的地址（默认端口 9090），并带上它所在的路径。它的应答见下方。"),
    ("err_prom_refused", "Prometheus at {subject} refused the query; its reason is below. A timeout or too many points per series asks for a shorter time range.", "{subject} 上的 Prometheus 拒绝了查询，原因见下方。若是超时或每条序列的点数过多，请缩短时间范围。"),
    ("err_prom_unknown_gpu", "The host has no GPU {subject} in the range; its GPUs there: {detail}. Leave the GPU field empty to read them all.", "该主机在此时间范围内没有 GPU {subject}；它有的 GPU：{detail}。GPU 一栏留空即读取全部。"),
    ("err_no_fleet", "No hosts connected together: give several SSH hosts or a Slurm job first.", "尚未同时连接多台主机：请先填写多个 SSH 主机或一个 Slurm 作业。"),
    ("err_stale_diagnosis", "This checkup was stored by an older version of GPU Checkup, and its recording {subject} is no longer there to analyse again. Open the recording again (Open a recording), or run the checkup again.", "这次体检由旧版 GPU 体检保存，而它的记录 {subject} 已不在原处，无法重新分析。请重新打开该记录（打开记录），或重新做一次体检。"),
    ("err_no_gpu_data", "Only host samples: nothing was recorded on a GPU (the host has no NVIDIA driver, or no GPU was sampled), so there is nothing to diagnose.", "只有主机采样：没有记录到任何 GPU 数据（主机没有 NVIDIA 驱动，或没有采样任何 GPU），因此无法诊断。"),
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
    ("stop_profiling", "Stop the run", "停止运行"),
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
    ("info", "info", "提示"),
    ("export", "Export", "导出"),
    ("preview", "Preview", "预览"),
    ("written", "Written:", "已写入："),
    ("set_baseline", "Make this the project's baseline", "设为项目基线"),
    ("compare", "Compare side by side", "并排对比"),
    ("compare_pick", "another checkup…", "另一次体检…"),
    ("compare_go", "Compare", "对比"),
    ("rerun_compare", "Re-run and compare", "重新运行并对比"),
    ("rerun_help", "After applying the fix: a new checkup of the same training on this host, compared with this one when it is done.", "应用修复后：在本主机上对同一训练做一次新的检查，完成后与本次对比。"),
    ("rerun_needs_host", "Connect to the host the training runs on (left) to re-run it after the fix.", "先连接训练所在的主机（左侧），才能在修复后重新运行。"),
    ("rerun_title", "{title}, after a fix", "{title}（修复后）"),
    ("rerun_of", "This checkup re-runs “{title}” to check a fix: start the training with the fix applied, record it as before, and its diagnosis opens with the comparison.", "本次检查是对“{title}”的复查，用于验证修复：启动已应用修复的训练，按之前的方式记录，诊断页会先给出两次的对比。"),
    ("rerun_of_deleted", "This checkup re-ran an earlier one that has since been deleted: there is nothing to compare it with.", "本次检查复查的那次检查已被删除，无从对比。"),
    ("rerun_compared", "Compared with the checkup before the fix", "与修复前的检查对比"),
    ("before", "before", "之前"),
    ("after", "after", "之后"),
    ("change", "change", "变化"),
];

/// The text for `key` in `l`; a key without an entry is shown as it is.
pub fn tr(l: Language, key: &str) -> String {
    match lookup(l, key) {
        Some(t) => t.to_owned(),
        None => key.to_owned(),
    }
}

/// The text for `key` in `l`, if the catalogue has it.
pub fn lookup(l: Language, key: &str) -> Option<&'static str> {
    CATALOGUE
        .iter()
        .find(|(k, _, _)| *k == key)
        .map(|(_, en, zh)| match l {
            Language::En => *en,
            Language::Zh => *zh,
        })
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
    match e.code.as_deref().and_then(|c| lookup(l, c)) {
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
        GpuProblem::NoDriver { detail } => ("gpu_problem_no_driver", detail),
        GpuProblem::Nvml { detail } => ("gpu_problem_nvml", detail),
        GpuProblem::NoNvmlInBuild => ("gpu_problem_no_nvml_build", &String::new()),
    };
    ErrorWords {
        words: tr(l, key),
        details: (!detail.is_empty()).then(|| detail.clone()),
    }
}

/// What the app says when the history database could not be opened as it was.
pub fn store_notice_words(l: Language, n: &StoreNotice) -> String {
    let (key, fill): (&str, Vec<(&str, &str)>) = match n {
        StoreNotice::StartedAfresh {
            path,
            kept_as,
            detail,
        } => (
            "store_started_afresh",
            vec![
                ("{path}", path),
                ("{kept_as}", kept_as),
                ("{detail}", detail),
            ],
        ),
        StoreNotice::ReadOnly {
            path,
            newer_version: true,
            ..
        } => ("store_newer", vec![("{path}", path)]),
        StoreNotice::ReadOnly { path, detail, .. } => (
            "store_read_only",
            vec![("{path}", path), ("{detail}", detail)],
        ),
        StoreNotice::Temporary {
            path,
            temporary,
            detail,
        } => (
            "store_temporary",
            vec![
                ("{path}", path),
                ("{temporary}", temporary),
                ("{detail}", detail),
            ],
        ),
    };
    let mut words = tr(l, key);
    for (slot, value) in fill {
        // The sentence puts its own full stop after the detail.
        words = words.replace(slot, value.trim_end_matches(['.', '。']));
    }
    words
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
            code: Some("err_auth_refused".into()),
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
            code: Some("err_unsupported_host".into()),
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
            "err_unsupported_host",
            "err_prom_unknown_host",
            "err_prom_unknown_gpu",
        ];
        for (key, en, zh) in CATALOGUE.iter().filter(|(k, _, _)| k.starts_with("err_")) {
            if !inline.contains(key) {
                assert!(
                    !en.contains("{detail}") && !zh.contains("{detail}"),
                    "{key}"
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
    fn keys_are_unique() {
        let mut keys: Vec<&str> = CATALOGUE.iter().map(|(k, _, _)| *k).collect();
        keys.sort_unstable();
        let n = keys.len();
        keys.dedup();
        assert_eq!(keys.len(), n);
    }
}
