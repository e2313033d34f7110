//! The static environment check: seconds, read-only. GPU facts come from NVML, training
//! software versions from the user's Python, the rest from the host. The judgement of the
//! GPU facts is the engine's (one set of rules for live hosts and recordings); this module
//! adds what only a live host can show.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use checkup_model::{CheckId, CheckStatus, CheckValue, EnvCheck, GpuProcess, RunFacts};

/// What `checkup-agent check` inspects besides the GPUs and the host.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// The Python that runs training (its torch is inspected).
    pub python: Option<String>,
    /// Where data and checkpoints live (free disk is checked there).
    pub data_dir: Option<std::path::PathBuf>,
    /// DataLoader workers per GPU the user plans.
    pub workers: Option<u32>,
    /// Also run `python -m torch.utils.collect_env` (slow: a few seconds).
    pub collect_env: bool,
    /// The folder the training runs in, where environments are looked for; None: the
    /// agent's own.
    pub cwd: Option<PathBuf>,
    /// The recorded run whose samples this agent plays back: its GPUs and driver (its
    /// `static/facts.json`) stand in for this host's, as its samples do.
    pub replay: Option<PathBuf>,
}

/// The GPU and driver facts a recorded run holds (`static/facts.json`), if it holds them.
fn recorded_gpu_facts(run: &Path) -> Option<RunFacts> {
    let path = run
        .join(checkup_recording::layout::STATIC_DIR)
        .join(checkup_recording::layout::FACTS_JSON);
    let recorded: RunFacts = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    Some(RunFacts {
        driver_version: recorded.driver_version,
        cuda_driver_version: recorded.cuda_driver_version,
        gpu_count: recorded.gpu_count,
        gpu_name: recorded.gpu_name,
        gpus: recorded.gpus,
        ..RunFacts::default()
    })
}

/// The driver answered: its version, the CUDA version it supports and its GPUs, from the
/// facts NVML (or a replayed recording) gave.
fn driver_answers(facts: &RunFacts) -> EnvCheck {
    EnvCheck::new(
        CheckId::NvidiaDriver,
        CheckStatus::Pass,
        CheckValue::Driver {
            gpus: facts.gpu_count.unwrap_or(facts.gpus.len() as u32),
            driver: facts.driver_version.clone().unwrap_or_default(),
            cuda: facts.cuda_driver_version.clone().unwrap_or_default(),
        },
    )
}

pub use checkup_model::CheckReport;

/// What NVML says about the driver and the GPUs, into `facts`.
#[cfg(feature = "nvml")]
fn nvml_facts(nv: &crate::collect::nvml::NvmlCollector, facts: &mut RunFacts) {
    facts.driver_version = nv.driver_version();
    facts.cuda_driver_version = nv.cuda_driver_version();
    facts.gpus = nv.static_facts();
    facts.gpu_count = Some(nv.gpu_count());
    facts.gpu_name = facts.gpus.first().and_then(|g| g.name.clone());
}

/// GPU and driver facts alone (no Python, no host checks): what a run folder records.
pub fn gpu_facts() -> RunFacts {
    let mut facts = RunFacts::default();
    #[cfg(feature = "nvml")]
    if let Ok(nv) = crate::collect::nvml::NvmlCollector::new() {
        nvml_facts(&nv, &mut facts);
    }
    facts.host_cpus = std::thread::available_parallelism()
        .ok()
        .map(|n| n.get() as u32);
    facts
}

/// Runs every environment check: driver and GPUs, the training's Python and torch, /dev/shm, disk, other GPU processes.
pub fn run_check(opts: &CheckOptions) -> CheckReport {
    let mut facts = RunFacts::default();
    let mut checks = Vec::new();
    let recorded = opts.replay.as_deref().and_then(recorded_gpu_facts);
    if let Some(r) = &recorded {
        facts = r.clone();
        checks.push(driver_answers(&facts));
    }
    #[cfg(feature = "nvml")]
    match recorded
        .is_none()
        .then(crate::collect::nvml::NvmlCollector::new)
    {
        None => {}
        Some(Ok(nv)) => {
            nvml_facts(&nv, &mut facts);
            checks.push(driver_answers(&facts));
            let me = std::process::id();
            let others: Vec<GpuProcess> = nv
                .gpu_processes()
                .into_iter()
                .filter(|(_, pid, _)| *pid != me)
                .map(|(gpu, pid, used_mib)| GpuProcess {
                    gpu,
                    pid,
                    used_mib,
                    command: None,
                })
                .collect();
            checks.push(EnvCheck::new(
                CheckId::GpuProcesses,
                if others.is_empty() {
                    CheckStatus::Pass
                } else {
                    CheckStatus::Warn
                },
                CheckValue::Processes { processes: others },
            ));
            if !nv.gpm_supported() && nv.gpu_count() > 0 {
                checks.push(EnvCheck::new(
                    CheckId::Gpm,
                    CheckStatus::Warn,
                    CheckValue::NotSupported,
                ));
            }
        }
        Some(Err(e)) => checks.push(EnvCheck::new(
            CheckId::NvidiaDriver,
            CheckStatus::Fail,
            CheckValue::System {
                message: e.to_string(),
            },
        )),
    }
    #[cfg(not(feature = "nvml"))]
    if recorded.is_none() {
        checks.push(EnvCheck::new(
            CheckId::NvidiaDriver,
            CheckStatus::Unknown,
            CheckValue::NoNvml,
        ));
    }

    facts.host_cpus = std::thread::available_parallelism()
        .ok()
        .map(|n| n.get() as u32);
    // The training's own interpreter: given, else the active or a local environment's.
    let cwd = opts
        .cwd
        .clone()
        .unwrap_or_else(|| std::env::current_dir().unwrap_or_else(|_| "/".into()));
    let interpreters: Vec<String> = training_interpreters(&cwd, |k| std::env::var(k).ok())
        .into_iter()
        .map(|p| p.display().to_string())
        .collect();
    let python = opts
        .python
        .clone()
        .filter(|p| !p.trim().is_empty())
        .or_else(|| interpreters.first().cloned())
        .unwrap_or_else(|| "python3".into());
    match python_versions(&python) {
        Ok(v) => {
            facts.torch_version = v.torch.clone();
            facts.cuda_runtime_version = v.cuda.clone();
            facts.nccl_version = v.nccl.clone();
            let cuda_checks = if v.torch.is_some() {
                torch_cuda_checks(&v)
            } else {
                Vec::new()
            };
            checks.push(EnvCheck::new(
                CheckId::Torch,
                if v.torch.is_some() {
                    CheckStatus::Pass
                } else {
                    CheckStatus::Warn
                },
                CheckValue::Torch {
                    torch: v.torch,
                    cuda: v.cuda,
                    cudnn: v.cudnn,
                    nccl: v.nccl,
                    python: python.clone(),
                },
            ));
            checks.extend(cuda_checks);
        }
        Err(e) => checks.push(EnvCheck::new(
            CheckId::Torch,
            CheckStatus::Unknown,
            CheckValue::System { message: e },
        )),
    }
    if let Some(w) = opts.workers {
        facts.dataloader = Some(checkup_model::DataLoaderSettings {
            num_workers: Some(w),
            ..Default::default()
        });
        facts.world_size = facts.gpu_count;
    }
    // The engine's rules judge the GPU and version facts.
    checks.extend(checkup_environment::environment_checks(&facts));
    checks.push(shm_check(Path::new("/dev/shm")));
    checks.push(profiling_permission_check());
    let dir = opts
        .data_dir
        .clone()
        .unwrap_or_else(|| std::env::current_dir().unwrap_or_else(|_| "/".into()));
    checks.push(disk_check(&dir));
    let collect_env = opts.collect_env.then(|| {
        Command::new(&python)
            .args(["-m", "torch.utils.collect_env"])
            .output()
            .map(|o| {
                String::from_utf8_lossy(&o.stdout).into_owned()
                    + &String::from_utf8_lossy(&o.stderr)
            })
            .unwrap_or_else(|e| format!("cannot run `{python} -m torch.utils.collect_env`: {e}"))
    });
    CheckReport {
        facts,
        checks,
        collect_env,
        python: Some(python),
        interpreters,
        gpus_recorded_in: recorded
            .and(opts.replay.as_ref())
            .map(|r| r.display().to_string()),
    }
}

#[derive(Debug, Default, serde::Deserialize)]
struct PythonVersions {
    torch: Option<String>,
    cuda: Option<String>,
    cudnn: Option<String>,
    nccl: Option<String>,
    #[serde(default)]
    cuda_available: bool,
    #[serde(default)]
    device_count: u32,
    /// `torch.cuda.get_arch_list()`: `sm_90`, `compute_90`.
    #[serde(default)]
    arch_list: Vec<String>,
    /// Compute capability of GPU 0, as torch sees it.
    capability: Option<(u32, u32)>,
}

/// Interpreters a training may run with, most likely first: the active virtualenv, the
/// active conda environment, then an environment folder in the working folder.
pub fn training_interpreters(cwd: &Path, env: impl Fn(&str) -> Option<String>) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = ["VIRTUAL_ENV", "CONDA_PREFIX"]
        .iter()
        .filter_map(|k| env(k).filter(|v| !v.is_empty()).map(PathBuf::from))
        .collect();
    roots.extend([".venv", "venv", "env", ".env"].iter().map(|d| cwd.join(d)));
    let mut out: Vec<PathBuf> = Vec::new();
    for root in roots {
        for name in ["python", "python3"] {
            let p = root.join("bin").join(name);
            if p.is_file() && !out.contains(&p) {
                out.push(p);
                break;
            }
        }
    }
    out
}

/// torch's view of CUDA in the training's interpreter: whether it can use a GPU, and
/// whether it ships kernels for GPU 0's architecture.
fn torch_cuda_checks(v: &PythonVersions) -> Vec<EnvCheck> {
    let mut out = vec![EnvCheck::new(
        CheckId::TorchCuda,
        if v.cuda_available {
            CheckStatus::Pass
        } else {
            CheckStatus::Fail
        },
        CheckValue::TorchCuda {
            available: v.cuda_available,
            devices: v.device_count,
        },
    )];
    if let Some(cap) = v.capability.filter(|_| !v.arch_list.is_empty()) {
        out.push(arch_check(cap, &v.arch_list));
    }
    out
}

/// Pass when torch carries `sm_XY` for the GPU (or a binary-compatible one of the same major
/// version at or below it); warn when only PTX (`compute_XY`) at or below it can be JIT-compiled;
/// fail otherwise.
pub fn arch_check((major, minor): (u32, u32), compiled: &[String]) -> EnvCheck {
    let gpu = major * 10 + minor;
    let parse = |prefix: &str| -> Vec<u32> {
        compiled
            .iter()
            .filter_map(|a| a.strip_prefix(prefix))
            .filter_map(|n| {
                n.trim_end_matches(|c: char| c.is_ascii_alphabetic())
                    .parse()
                    .ok()
            })
            .collect()
    };
    let sass = parse("sm_");
    let ptx = parse("compute_");
    // SASS runs on GPUs of the same major version and an equal or higher minor one.
    let status = if sass.iter().any(|&a| a / 10 == major && a <= gpu) {
        CheckStatus::Pass
    } else if ptx.iter().any(|&a| a <= gpu) {
        CheckStatus::Warn
    } else {
        CheckStatus::Fail
    };
    EnvCheck::new(
        CheckId::TorchArch,
        status,
        CheckValue::TorchArch {
            gpu_arch: format!("sm_{gpu}"),
            compiled: compiled.to_vec(),
        },
    )
}

const VERSIONS_PY: &str = r#"
import json
out = {}
try:
    import torch
    out["torch"] = torch.__version__
    out["cuda"] = torch.version.cuda
    out["cudnn"] = str(torch.backends.cudnn.version()) if torch.backends.cudnn.is_available() else None
    try:
        out["nccl"] = ".".join(map(str, torch.cuda.nccl.version()))
    except Exception:
        out["nccl"] = None
    try:
        out["cuda_available"] = bool(torch.cuda.is_available())
        out["device_count"] = torch.cuda.device_count() if out["cuda_available"] else 0
        out["arch_list"] = list(torch.cuda.get_arch_list())
        if out["cuda_available"]:
            out["capability"] = list(torch.cuda.get_device_capability(0))
    except Exception:
        pass
except ImportError:
    pass
print(json.dumps(out))
"#;

fn python_versions(python: &str) -> Result<PythonVersions, String> {
    let mut child = Command::new(python)
        .args(["-c", VERSIONS_PY])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run `{python}`: {e}"))?;
    // Importing torch can take seconds; never hang the check on a broken environment.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if std::time::Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(50))
            }
            _ => {
                let _ = child.kill();
                return Err(format!("`{python}` did not answer within 60 s"));
            }
        }
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    serde_json::from_slice(&out.stdout)
        .map_err(|_| format!("`{python}` printed no version information"))
}

/// (total, available) bytes of the filesystem holding `path`.
pub fn fs_space(path: &Path) -> Option<(u64, u64)> {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).ok()?;
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: c is a valid NUL-terminated path and st is ours to fill.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    let block = st.f_frsize as u64;
    Some((st.f_blocks as u64 * block, st.f_bavail as u64 * block))
}

fn gib(b: u64) -> f64 {
    b as f64 / (1u64 << 30) as f64
}

/// Whether /dev/shm is large enough for DataLoader workers to pass batches.
pub fn shm_check(path: &Path) -> EnvCheck {
    match fs_space(path) {
        Some((total, _)) => {
            let status = if total < 256 << 20 {
                CheckStatus::Fail
            } else if total < 2 << 30 {
                CheckStatus::Warn
            } else {
                CheckStatus::Pass
            };
            EnvCheck::new(
                CheckId::DevShm,
                status,
                CheckValue::Size { gib: gib(total) },
            )
        }
        None => EnvCheck::new(CheckId::DevShm, CheckStatus::Warn, CheckValue::Missing),
    }
}

fn profiling_permission_check() -> EnvCheck {
    let params = std::fs::read_to_string("/proc/driver/nvidia/params").ok();
    let admin_only = params.as_deref().and_then(|p| {
        p.lines()
            .find_map(|l| l.strip_prefix("RmProfilingAdminOnly:"))
            .map(|v| v.trim() == "1")
    });
    match admin_only {
        Some(admin_only) => EnvCheck::new(
            CheckId::ProfilingPermission,
            if admin_only {
                CheckStatus::Warn
            } else {
                CheckStatus::Pass
            },
            CheckValue::ProfilingAdminOnly { admin_only },
        ),
        None => EnvCheck::new(
            CheckId::ProfilingPermission,
            CheckStatus::Unknown,
            CheckValue::NoDriverParams,
        ),
    }
}

/// Free disk where data and checkpoints live.
pub fn disk_check(dir: &Path) -> EnvCheck {
    match fs_space(dir) {
        Some((_, free)) => {
            let status = if free < 5 << 30 {
                CheckStatus::Fail
            } else if free < 50 << 30 {
                CheckStatus::Warn
            } else {
                CheckStatus::Pass
            };
            EnvCheck::new(
                CheckId::DiskFree,
                status,
                CheckValue::DiskFree {
                    gib: gib(free),
                    path: dir.display().to_string(),
                },
            )
        }
        None => EnvCheck::new(
            CheckId::DiskFree,
            CheckStatus::Unknown,
            CheckValue::Unreadable {
                path: dir.display().to_string(),
            },
        ),
    }
}

/// The process holding the most memory on `gpu`: the training job to attach to.
pub fn process_on_gpu(gpu: u32) -> crate::Result<u32> {
    #[cfg(feature = "nvml")]
    {
        let nv = crate::collect::nvml::NvmlCollector::new()?;
        if gpu >= nv.gpu_count() {
            return Err(crate::AgentError::Invalid(format!(
                "GPU {gpu} does not exist: this host has {} GPU(s)",
                nv.gpu_count()
            )));
        }
        nv.gpu_processes()
            .into_iter()
            .filter(|(g, _, _)| *g == gpu)
            .max_by_key(|(_, _, mib)| mib.unwrap_or(0))
            .map(|(_, pid, _)| pid)
            .ok_or_else(|| {
                crate::AgentError::Invalid(format!(
                    "no process is using GPU {gpu}: start training first, or give --pid"
                ))
            })
    }
    #[cfg(not(feature = "nvml"))]
    {
        Err(crate::AgentError::Invalid(format!(
            "cannot find the process on GPU {gpu}: agent built without NVML"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn archs(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn an_h200_passes_with_sm_90_in_the_build_and_fails_without_it() {
        let cu130 = archs(&["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]);
        assert_eq!(arch_check((9, 0), &cu130).status, CheckStatus::Pass);
        let old = archs(&["sm_37", "sm_50", "sm_60", "sm_70"]);
        let c = arch_check((9, 0), &old);
        assert_eq!(c.status, CheckStatus::Fail);
        assert_eq!(
            c.value,
            CheckValue::TorchArch {
                gpu_arch: "sm_90".into(),
                compiled: old
            }
        );
    }

    #[test]
    fn only_ptx_for_an_older_gpu_is_a_warning_and_sass_runs_within_its_major_version() {
        assert_eq!(
            arch_check((9, 0), &archs(&["sm_80", "compute_80"])).status,
            CheckStatus::Warn
        );
        // An sm_86 card runs sm_80 code; sm_90a is read as sm_90.
        assert_eq!(
            arch_check((8, 6), &archs(&["sm_80"])).status,
            CheckStatus::Pass
        );
        assert_eq!(
            arch_check((9, 0), &archs(&["sm_90a"])).status,
            CheckStatus::Pass
        );
        assert_eq!(
            arch_check((8, 0), &archs(&["sm_86"])).status,
            CheckStatus::Fail
        );
    }

    #[test]
    fn the_active_environment_comes_before_a_local_one() {
        let d = tempfile::tempdir().unwrap();
        let make = |dir: &Path, name: &str| {
            std::fs::create_dir_all(dir.join("bin")).unwrap();
            std::fs::write(dir.join("bin").join(name), "").unwrap();
        };
        let conda = d.path().join("conda");
        make(&conda, "python");
        make(&d.path().join("work/.venv"), "python3");
        let work = d.path().join("work");
        let env = |k: &str| (k == "CONDA_PREFIX").then(|| conda.display().to_string());
        assert_eq!(
            training_interpreters(&work, env),
            vec![conda.join("bin/python"), work.join(".venv/bin/python3")]
        );
        assert!(training_interpreters(&d.path().join("nowhere"), |_| None).is_empty());
    }
}
