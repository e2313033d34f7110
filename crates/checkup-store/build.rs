//! Embeds the schema's migrations, `../../migrations/NNNN_description.sql`, as
//! `(version, description, SQL)` in version order: what `sqlx::migrate!` did, without
//! sqlx's macros, which compiled sqlx and SQLite once more for the compiler's own use in
//! every build (debug, check and release). A file that does not fit the pattern stops the
//! build with its name.
use std::path::PathBuf;
use std::{env, fs};

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let dir = manifest.join("../../migrations");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut migrations = Vec::new();
    for entry in fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a migrations folder entry").path();
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let Some(stem) = name.strip_suffix(".sql") else {
            continue;
        };
        assert!(
            !stem.ends_with(".up") && !stem.ends_with(".down"),
            "migrations/{name}: reversible migrations are not embedded; write one NNNN_description.sql"
        );
        let version = stem
            .split_once('_')
            .and_then(|(version, description)| Some((version.parse::<i64>().ok()?, description)));
        let Some((version, description)) = version else {
            panic!("migrations/{name}: expected NNNN_description.sql");
        };
        // sqlx's own reading of a file name: `_` in the description is a space.
        let description = description.replace('_', " ");
        let path = path.canonicalize().expect("a listed file exists");
        migrations.push((version, description, path));
    }
    migrations.sort();
    let mut out = String::from("&[\n");
    for (version, description, path) in &migrations {
        out += &format!(
            "    ({version}, {description:?}, include_str!({:?})),\n",
            path.display().to_string()
        );
    }
    out += "]\n";
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("cargo sets it"));
    fs::write(out_dir.join("migrations.rs"), out).expect("OUT_DIR is writable");
}
