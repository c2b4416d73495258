//! Embeds the shipped device library (`data/library.json` and the files
//! it lists, `data/generated.json`, the manifest of the generated
//! devices, which are made when opened, and their task list
//! `data/generated-tasks.json`) in the extension, so `knoblab.make("coffee-0001")` works from
//! an installed wheel with no data folder beside it. The files are loaded
//! by the core's in-memory loader, as the page loads fetched ones.

#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)
use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let data = manifest.join("../../data");
    let index_path = data.join("library.json");
    println!("cargo:rerun-if-changed={}", index_path.display());
    let index = std::fs::read(&index_path).expect("data/library.json is readable");
    let value: serde_json::Value =
        serde_json::from_slice(&index).expect("data/library.json is JSON");
    let mut out = String::from("/// The shipped library: (path relative to the index, bytes).\n");
    out.push_str("pub static LIBRARY_FILES: &[(&str, &[u8])] = &[\n");
    let mut add = |rel: &str| {
        let path = data.join(rel);
        println!("cargo:rerun-if-changed={}", path.display());
        let abs = path.canonicalize().expect("a library file exists");
        writeln!(
            out,
            "    ({rel:?}, include_bytes!({:?})),",
            abs.display().to_string()
        )
        .expect("writing to a String");
    };
    add("library.json");
    // The generated devices' manifest (they are made when opened) and
    // their task list (what `knoblab.library()` lists of them).
    add("generated.json");
    add("generated-tasks.json");
    for device in value["devices"].as_array().expect("a devices list") {
        let dir = device["path"].as_str().expect("a device path");
        for file in device["files"].as_array().expect("a files list") {
            add(&format!("{dir}/{}", file.as_str().expect("a file name")));
        }
    }
    out.push_str("];\n");
    let dest = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("library.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}
