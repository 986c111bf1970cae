//! Hot loops compiled twice: for the baseline x86-64 (SSE2) that the shipped binaries
//! target, and for processors with AVX2 and the bit instructions of x86-64-v3 (BMI1,
//! BMI2, LZCNT, POPCNT), chosen at run time. The compiler vectorizes the second copy
//! eight f32 or four f64 lanes wide and counts bits in one instruction.
//!
//! The same bits either way: both copies are the same source, and the copies leave out
//! FMA, so no multiply and add is fused (Rust never contracts them on its own).
//! [`copies!`] makes them: an `unsafe fn` with the features enabled around an
//! `#[inline(always)]` body, and the function that picks it where [`v3`] says the
//! processor may run it.
//!
//! Why not the whole crate: a build for x86-64-v3 made the 5 mm SCM step 5 % slower
//! on one thread on this project's VM, while two loops took 20-30 % less time each in
//! it (the radial spread, the choice of faces to scan): those are copied
//! (docs/models/scm.md, Session 72).

/// Whether this processor has AVX2, BMI1, BMI2, LZCNT and POPCNT (found once, then
/// one atomic load). Callers check it once per loop, not per iteration.
#[cfg(target_arch = "x86_64")]
#[inline]
pub fn v3() -> bool {
    use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
    // 0: not found yet, 1: no, 2: yes
    static FOUND: AtomicU8 = AtomicU8::new(0);
    match FOUND.load(Relaxed) {
        0 => {
            let yes = std::is_x86_feature_detected!("avx2")
                && std::is_x86_feature_detected!("bmi1")
                && std::is_x86_feature_detected!("bmi2")
                && std::is_x86_feature_detected!("lzcnt")
                && std::is_x86_feature_detected!("popcnt");
            FOUND.store(if yes { 2 } else { 1 }, Relaxed);
            yes
        }
        f => f == 2,
    }
}

/// `fn name / name_v3 => body(arg: Type, ...) -> Ret { ... }`: defines `body` (the
/// block, `#[inline(always)]`, so that each copy is compiled with its features),
/// `name`, which runs `name_v3` where [`v3`] holds and `body` elsewhere, and
/// `name_v3`, `body` compiled with AVX2 and BMI (an `unsafe fn`: callers check [`v3`]
/// first).
macro_rules! copies {
    ($(#[$m:meta])* $vis:vis fn $name:ident / $v3:ident => $body:ident
        ($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? $code:block) => {
        $(#[$m])*
        $vis fn $name($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            if $crate::wide::v3() {
                // SAFETY: the processor has the features (checked above)
                return unsafe { $v3($($arg),*) };
            }
            $body($($arg),*)
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
        unsafe fn $v3($($arg: $ty),*) $(-> $ret)? {
            $body($($arg),*)
        }

        #[doc = concat!("The body of [`", stringify!($name), "`], compiled for the baseline \
            and for AVX2 (the same bits).")]
        #[inline(always)]
        fn $body($($arg: $ty),*) $(-> $ret)? $code
    };
}
pub(crate) use copies;
