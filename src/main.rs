//! The entry point: the `knoblab` CLI natively, the page on wasm32.

#[cfg(target_arch = "wasm32")]
fn main() {
    knoblab::ui::start();
}

#[cfg(all(not(target_arch = "wasm32"), feature = "cli"))]
fn main() -> std::process::ExitCode {
    knoblab::cli::main()
}
