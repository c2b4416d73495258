//! The page's link step. With the feature `split` on wasm32 the linker keeps
//! its relocations in the module (`--emit-relocs`): the split step
//! (scripts/split_page.py) reads them to move each split point's code into a
//! chunk of its own.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let split = std::env::var_os("CARGO_FEATURE_SPLIT").is_some();
    let wasm = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|arch| arch == "wasm32");
    if split && wasm {
        println!("cargo:rustc-link-arg-bin=knoblab-page=--emit-relocs");
    }
}
