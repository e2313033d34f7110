//! The desktop shell (`src-tauri`) over this crate, held to its shape from its source: every
//! command of the contract is declared and registered there as a one-line call into the
//! workflow. Checked here, where the tests build without Tauri: the test command leaves the
//! app out of its debug build and drives the release build the packages make.

#[test]
fn every_command_of_the_contract_is_a_one_line_shell_command_taking_its_arguments() {
    let source = include_str!("../../../src-tauri/src/commands.rs");
    let registered = include_str!("../../../src-tauri/src/lib.rs");
    for name in checkup_model::commands::COMMAND_NAMES {
        let declared = [format!("pub fn {name}("), format!("pub async fn {name}(")]
            .iter()
            .any(|d| source.contains(d.as_str()));
        assert!(declared, "`{name}` is not a command here");
        assert!(
            registered.contains(&format!("commands::{name},")),
            "`{name}` is not registered"
        );
    }
    // Each command takes the contract's type as `args` and answers the contract's
    // answer, nothing mirrored by hand.
    let attribute = "#[tauri::command(rename_all = \"snake_case\")]";
    let commands = source.matches(attribute).count();
    assert_eq!(commands, checkup_model::commands::COMMAND_NAMES.len());
    assert_eq!(source.matches("args: cmd::").count(), commands);
    assert_eq!(source.matches("-> Reply<cmd::").count(), commands);
    // The workflow does the work: besides the window's own two (its file chooser, its
    // first paint), every command's body is one line calling it.
    let one_liners = source
        .split(attribute)
        .skip(1)
        .filter(|command| {
            let body = command
                .split_once("{\n")
                .map_or("", |(_, rest)| rest.split("\n}").next().unwrap_or(""));
            body.lines().count() == 1 && body.contains("wf.")
        })
        .count();
    assert_eq!(one_liners, commands - 2);
}
