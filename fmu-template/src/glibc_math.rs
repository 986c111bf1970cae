//! `exp` and `log` for code in dependencies, without glibc's 2.29 symbol versions.
//!
//! glibc 2.29 gave `exp` and `log` new symbol versions (`GLIBC_2.29`, without the old
//! error-handling wrapper). Dependencies of the runtime (parry's geometry helpers) call
//! them through Rust's `f64::exp` and `f64::ln`, so a runtime linked against any newer
//! glibc needed 2.29 and did not load on RHEL 8 (glibc 2.28) or older. On Linux the
//! runtime is linked with `--wrap=exp --wrap=log` (`build.rs`): those calls come here,
//! to the portable versions the models use anyway (`contact_fmu::pmath`), which give
//! the same bits on every platform. The symbols are hidden: the FMU exports only the
//! FMI functions. (docs/platforms.md, "Which Linux")

extern "C" fn portable_exp(x: f64) -> f64 {
    contact_fmu::pmath::exp(x)
}

extern "C" fn portable_log(x: f64) -> f64 {
    contact_fmu::pmath::ln(x)
}

#[cfg(target_arch = "x86_64")]
core::arch::global_asm!(
    ".globl __wrap_exp",
    ".hidden __wrap_exp",
    ".type __wrap_exp, @function",
    "__wrap_exp:",
    "jmp {exp}",
    ".globl __wrap_log",
    ".hidden __wrap_log",
    ".type __wrap_log, @function",
    "__wrap_log:",
    "jmp {log}",
    exp = sym portable_exp,
    log = sym portable_log,
);

#[cfg(target_arch = "aarch64")]
core::arch::global_asm!(
    ".globl __wrap_exp",
    ".hidden __wrap_exp",
    ".type __wrap_exp, %function",
    "__wrap_exp:",
    "b {exp}",
    ".globl __wrap_log",
    ".hidden __wrap_log",
    ".type __wrap_log, %function",
    "__wrap_log:",
    "b {log}",
    exp = sym portable_exp,
    log = sym portable_log,
);

#[cfg(test)]
mod tests {
    extern "C" {
        fn __wrap_exp(x: f64) -> f64;
        fn __wrap_log(x: f64) -> f64;
    }

    #[test]
    fn the_wrapped_functions_are_the_portable_ones() {
        use contact_fmu::pmath;
        for x in [-745.2, -1.5, 0.0, 1e-300, 0.3, 1.0, 2.5, 709.7] {
            // SAFETY: plain functions of one f64 (the trampolines above)
            let (e, l) = unsafe { (__wrap_exp(x), __wrap_log(x)) };
            assert_eq!(e.to_bits(), pmath::exp(x).to_bits(), "exp({x})");
            assert_eq!(l.to_bits(), pmath::ln(x).to_bits(), "log({x})");
        }
    }
}
