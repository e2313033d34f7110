//! Process settings that keep the app's memory small. Each was measured with the app bench
//! (`cargo bench -p checkup-e2e --bench app`, 2026-11-30, WebKitGTK 2.50 on a software GL
//! stack, a 30-minute recording open after a demo checkup, every step visited each time).
//!
//! They go into the environment because WebKit reads them there, in this process and in the
//! web and network processes it starts (which inherit it). A value the user set wins.

/// Applies the settings. [`crate::run`] does, first thing, before any thread starts (the
/// environment is only safe to change then).
pub fn apply() {
    #[cfg(target_os = "linux")]
    {
        // The pages are documents with SVG charts (no animation, video or WebGL), so
        // compositing them with OpenGL buys nothing; on a software GL stack (VMs, remote
        // desktops, Xvfb) it cost the web process ~80 MiB (the app idle: 308 against
        // 231 MiB). "0" turns compositing back on.
        set_unless_given("WEBKIT_DISABLE_COMPOSITING_MODE", "1");
        // Without compositing the page reaches the window through shared memory, so nothing
        // here needs OpenGL: not the DMA-BUF renderer, not GTK's own GL. Left on, GTK's GLX
        // probe and WebKit's EGL probe load the GL driver into this process (Mesa with its
        // LLVM: this process went from 92 to 68 MiB without it).
        set_unless_given("WEBKIT_DISABLE_DMABUF_RENDERER", "1");
        set_unless_given("GDK_GL", "disable");
        // WebKit also asks EGL which DRM render node the web process should use. A machine
        // with none (VMs, Xvfb, remote desktops) can only be answered "none", so say so
        // without loading the driver to ask. On a machine with a GPU WebKit asks as usual.
        if !has_drm_render_node() {
            set_unless_given("WEBKIT_WEB_RENDER_DEVICE_FILE", NO_RENDER_NODE);
        }
        // JavaScriptCore interprets the UI's JavaScript and WebAssembly instead of compiling
        // them: the UI does little work per click, and the compiled code and its
        // bookkeeping stayed in the web process (-22 MiB there after the two walks; start
        // and step changes as fast as before).
        set_unless_given("JSC_useJIT", "0");
        // glibc gives each thread that allocates its own heap arena (up to 8 per core); the
        // async runtime and the analysis threads left freed memory spread over many of them
        // (-9 MiB in this process with two). This process's allocator read the environment
        // before `main`, so it is told directly; the WebKit processes read it at their start.
        if set_unless_given("MALLOC_ARENA_MAX", "2") {
            // SAFETY: mallopt changes a tuning value; it takes no pointers.
            unsafe {
                libc::mallopt(libc::M_ARENA_MAX, 2);
            }
        }
    }
}

/// A render node path that does not exist: WebKit ignores an empty value (and asks EGL).
#[cfg(target_os = "linux")]
const NO_RENDER_NODE: &str = "/dev/dri/no-render-node";

/// Whether the machine has a DRM render node (`/dev/dri/renderD*`), i.e. a GPU driver that
/// WebKit could render with.
#[cfg(target_os = "linux")]
fn has_drm_render_node() -> bool {
    std::fs::read_dir("/dev/dri").is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
    })
}

/// Sets `key` when the environment has no value for it; says whether it did.
#[cfg(target_os = "linux")]
fn set_unless_given(key: &str, value: &str) -> bool {
    let unset = std::env::var_os(key).is_none();
    if unset {
        std::env::set_var(key, value);
    }
    unset
}
