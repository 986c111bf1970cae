//! Links the unwinder statically into the runtime, so that the `.so` needs nothing
//! beyond libc/libm/libpthread/libdl (an FMU that needs a library the importer's
//! machine lacks fails to load).
//!
//! Rust's std asks for `libgcc_s.so.1` (the unwinder, needed to catch panics at the
//! FMI boundary). We put GCC's static unwinder `libgcc_eh.a` into the library whole;
//! it then defines every `_Unwind_*` symbol, and the linker's `--as-needed` (rustc's
//! default on Linux) drops the unused `libgcc_s` dependency. Where `libgcc_eh.a` cannot
//! be found, the runtime still builds, with the libgcc_s dependency.
//!
//! On Linux it also links with `--wrap=exp,--wrap=log` (see `src/glibc_math.rs`).
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let target = std::env::var("TARGET").unwrap_or_default();
    if !target.contains("linux-gnu") {
        return;
    }
    // exp and log from dependencies go to src/glibc_math.rs, not to glibc's GLIBC_2.29
    // versions: the runtime then loads on glibc before 2.29 (RHEL 8)
    println!("cargo:rustc-cdylib-link-arg=-Wl,--wrap=exp,--wrap=log");
    // The target's C compiler, as the cc crate looks it up: a cross build asks the
    // cross compiler (aarch64-linux-gnu-gcc), not the host's.
    let under = target.replace('-', "_");
    let keys = [format!("CC_{target}"), format!("CC_{under}"), "TARGET_CC".into(), "CC".into()];
    for k in &keys {
        println!("cargo:rerun-if-env-changed={k}");
    }
    let host = std::env::var("HOST").unwrap_or_default();
    let cc = keys
        .iter()
        .find_map(|k| std::env::var(k).ok())
        .unwrap_or_else(|| if host == target { "cc".into() } else { format!("{}-gcc", target.replace("-unknown", "")) });
    let found = Command::new(&cc)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| std::path::PathBuf::from(s.trim()))
        .filter(|p| p.is_absolute() && p.exists());
    match found {
        Some(path) => {
            let dir = path.parent().expect("libgcc_eh.a has a folder");
            println!("cargo:rustc-link-search=native={}", dir.display());
            println!("cargo:rustc-link-lib=static:+whole-archive,-bundle=gcc_eh");
        }
        None => println!(
            "cargo:warning=libgcc_eh.a not found: the FMU runtime will depend on libgcc_s.so.1"
        ),
    }
}
