//! An SSH host from the app, as a user reaches one: a real `sshd` on a loopback port with a
//! throwaway key and an ssh_config alias. The app uploads the agent, starts it, forwards its
//! port, and live samples come through the tunnel; a refused key is explained in plain words.

use std::ffi::OsString;
use std::time::Duration;

use checkup_e2e::{samples_in, App};
use checkup_testkit::TestSshd;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ssh_alias_gets_the_agent_uploaded_forwarded_and_sampled_through_the_tunnel() {
    let sshd = TestSshd::start();
    let app = App::launch(
        "ssh",
        &[
            ("GPU_CHECKUP_SSH_CONFIG", OsString::from(sshd.config_file())),
            ("GPU_CHECKUP_REMOTE_DIR", OsString::from(sshd.remote_dir())),
        ],
    )
    .await;

    // A refused key, in the user's language, with what to try.
    app.click("#lang-zh").await;
    app.type_into("#ssh-spec", "wrong-key").await;
    app.click("#connect-ssh").await;
    let refused = app
        .wait_for_text("#error", Duration::from_secs(30), |t| !t.is_empty())
        .await;
    assert!(refused.starts_with("wrong-key 拒绝登录"), "{refused}");
    assert!(
        refused.contains("`ssh-copy-id wrong-key`"),
        "says what to try: {refused}"
    );
    // What ssh itself said is kept, folded under "details", not in the sentence.
    assert!(!refused.contains("Permission denied"), "{refused}");
    app.element("#error-details").await;
    app.screenshot("1-key-refused-zh").await;
    app.click("#lang-en").await;

    app.type_into("#ssh-spec", "gpu-host").await;
    app.click("#connect-ssh").await;
    let status = app
        .wait_for_text("#host-status", Duration::from_secs(60), |t| {
            t.contains("agent ")
        })
        .await;
    assert!(status.contains("gpu-host"), "{status}");
    // The "remote" host is this machine: where the packages' test has the .deb installed at
    // the same moment, its /usr/bin/checkup-agent is this app's build, copied, not uploaded.
    assert!(
        status.contains("uploaded the agent")
            || status.contains("copied the agent installed at /usr/bin/checkup-agent"),
        "{status}"
    );
    let uploaded = sshd.remote_dir().join("checkup-agent");
    assert_eq!(
        std::fs::read(&uploaded).expect("the agent is on the host"),
        std::fs::read(checkup_testkit::shipped_app().with_file_name("checkup-agent")).unwrap(),
        "the agent on the host is the one the app bundles"
    );
    app.screenshot("2-connected").await;

    app.click("#new-checkup").await;
    app.element("table.checks").await;
    app.click("#step-sampling").await;
    app.type_into("#sample-seconds", "5").await;
    app.click("#start-sampling").await;
    let progress = app
        .wait_for_text("#live-progress", Duration::from_secs(30), |t| {
            samples_in(t) > 0
        })
        .await;
    app.screenshot("3-sampling-through-ssh").await;
    assert!(progress.contains("s / 5 s"), "{progress}");
    app.wait_for_text("#live-progress", Duration::from_secs(40), str::is_empty)
        .await;
    app.quit().await;
}
