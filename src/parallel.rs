//! Fork-join for the step loop: a few helper threads that stay hot between calls.
//!
//! A model step forks small jobs (one per SCM body, 20 to 200 us each) two or three
//! times per step, and one body's step forks pairs of 10 to 20 us ([`join`]: the
//! scan conversion of its next pose beside its soil update, and two more) and its
//! node-force chunks ([`for_each_chunk`]). Rayon parks its idle workers, and waking a
//! parked thread costs about 100 us on virtual machines like this project's
//! (measured: a `par_iter` over six trivial items takes 15 us back to back, 100 to
//! 140 us after the calling thread worked 50 to 200 us in between), which ate a third
//! of a six-wheel rover step. Here the calling thread takes part in its own job, and
//! the helpers spin for [`SPIN`] after each job before they park (OpenMP's runtimes do
//! the same, for 200 ms by default): a job that follows within a step finds them
//! awake, and a helper that is still asleep only misses items, it never delays the
//! caller.
//!
//! Results do not depend on which thread runs an item: each item writes only its own
//! slot, callers combine the slots in item order.
//!
//! How many threads: [`rayon::current_num_threads`] bounds them (so a test running in a
//! one-thread rayon pool runs sequentially), and the helpers are the machine's cores
//! less one (none on one core), created on first use and shared by every World in the
//! process; a call made while another thread's job runs on them runs on its caller
//! alone.

use std::cell::UnsafeCell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Mutex, OnceLock, PoisonError, RwLock, TryLockError};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// How long an idle helper spins before it parks.
pub const SPIN: Duration = Duration::from_millis(2);

/// A job: items `0..n`, each run once by `f`.
#[derive(Clone, Copy)]
struct Job {
    f: *const (dyn Fn(usize) + Sync),
    n: usize,
    /// Helpers taking part: those with a lower index.
    helpers: usize,
}

struct Shared {
    /// Written by the caller only while `open` is false (see [`for_each`]).
    job: UnsafeCell<Job>,
    /// Helpers may take items.
    open: AtomicBool,
    /// Next item to take.
    next: AtomicUsize,
    /// Helpers between their check of `open` and the end of their last item.
    active: AtomicUsize,
    /// Bumped for every job: what helpers wait for.
    epoch: AtomicUsize,
    /// Helpers park now instead of spinning (see [`rest`]).
    rest: AtomicBool,
    /// A helper's item panicked; the caller re-raises it.
    panicked: AtomicBool,
    /// Of each helper: parked (or about to), so the caller unparks it.
    sleeping: Vec<AtomicBool>,
}

// SAFETY: `job` is written only by the thread holding `Pool::busy` while `open` is
// false, and read by helpers only after they saw `open` true (SeqCst) after counting
// themselves in `active`; the caller waits for `active` to drop to zero before it
// returns (and so before the closure behind `job.f` goes away).
unsafe impl Sync for Shared {}
unsafe impl Send for Shared {}

struct Pool {
    shared: &'static Shared,
    threads: Vec<Thread>,
    busy: Mutex<()>,
}

static POOL: OnceLock<Pool> = OnceLock::new();

fn pool() -> &'static Pool {
    POOL.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let helpers = cores.saturating_sub(1).min(15);
        let noop: &'static (dyn Fn(usize) + Sync) = &|_| {};
        let shared: &'static Shared = Box::leak(Box::new(Shared {
            job: UnsafeCell::new(Job {
                f: noop,
                n: 0,
                helpers: 0,
            }),
            open: AtomicBool::new(false),
            next: AtomicUsize::new(0),
            active: AtomicUsize::new(0),
            epoch: AtomicUsize::new(0),
            panicked: AtomicBool::new(false),
            rest: AtomicBool::new(false),
            sleeping: (0..helpers).map(|_| AtomicBool::new(false)).collect(),
        }));
        let mut threads = Vec::new();
        for h in 0..helpers {
            let spawned = std::thread::Builder::new()
                .name(format!("contact-fmu-{h}"))
                .spawn(move || helper(shared, h));
            // no helper thread (resource limits): fewer helpers, still correct
            let Ok(handle) = spawned else { break };
            threads.push(handle.thread().clone());
        }
        Pool {
            shared,
            threads,
            busy: Mutex::new(()),
        }
    })
}

fn helper(s: &'static Shared, me: usize) {
    HELPER.set(true);
    let mut seen = s.epoch.load(SeqCst);
    loop {
        // wait for the next job: spin, then park
        let start = Instant::now();
        let mut spins = 0u32;
        while s.epoch.load(SeqCst) == seen {
            std::hint::spin_loop();
            spins = spins.wrapping_add(1);
            if spins % 256 == 0 && (s.rest.load(SeqCst) || start.elapsed() > SPIN) {
                s.sleeping[me].store(true, SeqCst);
                while s.epoch.load(SeqCst) == seen {
                    std::thread::park();
                }
                s.sleeping[me].store(false, SeqCst);
            }
        }
        seen = s.epoch.load(SeqCst);
        s.active.fetch_add(1, SeqCst);
        if s.open.load(SeqCst) {
            // SAFETY: see `Shared`: the job is live while `open` and we are active
            let job = unsafe { *s.job.get() };
            let f = unsafe { &*job.f };
            // helpers beyond the job's thread bound sit it out
            let mut i = if me < job.helpers {
                s.next.fetch_add(1, SeqCst)
            } else {
                job.n
            };
            while i < job.n {
                if catch_unwind(AssertUnwindSafe(|| f(i))).is_err() {
                    s.panicked.store(true, SeqCst);
                }
                i = s.next.fetch_add(1, SeqCst);
            }
        }
        s.active.fetch_sub(1, SeqCst);
    }
}

/// Closes the job and waits for the helpers, also when the caller's item panics.
struct Close<'a>(&'a Shared);

impl Drop for Close<'_> {
    fn drop(&mut self) {
        self.0.open.store(false, SeqCst);
        while self.0.active.load(SeqCst) != 0 {
            std::hint::spin_loop();
        }
    }
}

thread_local! {
    /// This thread's jobs run on it alone ([`Gate`]).
    static ALONE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// This thread is one of the pool's helpers.
    static HELPER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the calling thread is one of the pool's helpers (a job's item runs on the
/// thread that called the job or on a helper). For where an item writes: lines the
/// caller holds cost a helper more to write than lines of its own.
pub fn on_helper() -> bool {
    HELPER.get()
}

/// Chooses, for a piece of work a model repeats every step, between running its jobs
/// on the helpers and on the calling thread alone, by timing both: whichever took
/// less wall time at the last probe. The results are the same bits either way (every
/// job's items write their own slots, combined in item order), so only the speed
/// depends on the choice.
///
/// Why: on this project's 2-core VM the same two-thread SCM step runs in one of two
/// modes that last minutes, by the host's placement of the cores rather than by
/// anything in the process (pinning the threads does not change it): at 1 cm 38 us
/// per step or 65 us, against 45 us on one thread. In the slow mode each item a
/// helper takes costs more than it saves (the caller waits for it, its data crossing
/// between the cores), and one thread is faster (docs/models/scm.md, Speed).
///
/// A probe runs [`Gate::PROBE`] rounds with the helpers and then as many alone, after
/// every [`Gate::EVERY`] rounds, and keeps the way with the lower median; the first
/// [`Gate::WARM`] rounds of each way are not counted (a helper may have parked, and
/// its caches hold what the caller wrote meanwhile). A round is what the model does
/// in one step: every [`Gate::run`] until [`Gate::round_done`], all the same way.
#[derive(Debug, Clone, Default)]
pub struct Gate {
    /// Rounds since the last probe ended.
    rounds: u32,
    /// Rounds into the running probe.
    probing: u32,
    /// The running probe's times (ns): with the helpers, alone.
    times: [[u64; Gate::PROBE as usize]; 2],
    /// Time in this round's calls so far (ns, in a probe).
    round_ns: u64,
    /// The last probe's choice: alone.
    alone: bool,
}

impl Gate {
    /// Rounds each way in a probe.
    pub const PROBE: u32 = 12;
    /// Rounds at the start of each way not counted.
    pub const WARM: usize = 3;
    /// Rounds between probes.
    pub const EVERY: u32 = 1000;

    fn probe(&self) -> bool {
        self.rounds == 0
    }

    /// Whether this round runs alone: in a probe its second half, else the last
    /// probe's choice.
    fn chosen_alone(&self) -> bool {
        if self.probe() {
            self.probing >= Self::PROBE
        } else {
            self.alone
        }
    }

    /// Runs `f`, its jobs ([`for_each`], [`join`] and the rest of this module) on the
    /// helpers or on the calling thread alone as the gate chose (timed in a probe).
    pub fn run<R>(&mut self, f: impl FnOnce() -> R) -> R {
        if rayon::current_num_threads() <= 1 {
            return f();
        }
        let before = ALONE.with(|a| a.replace(self.chosen_alone()));
        let start = self.probe().then(Instant::now);
        let r = f();
        ALONE.with(|a| a.set(before));
        if let Some(start) = start {
            self.round_ns += start.elapsed().as_nanos() as u64;
        }
        r
    }

    /// Ends a round (a model step's calls).
    pub fn round_done(&mut self) {
        self.record(self.round_ns);
    }

    /// Ends a round that took `ns` in its calls (counted in a probe only).
    fn record(&mut self, ns: u64) {
        self.round_ns = 0;
        if !self.probe() {
            self.rounds = (self.rounds + 1) % Self::EVERY;
            return;
        }
        let (alone, k) = (self.probing >= Self::PROBE, self.probing % Self::PROBE);
        self.times[usize::from(alone)][k as usize] = ns;
        self.probing += 1;
        if self.probing < 2 * Self::PROBE {
            return;
        }
        let median = |t: &[u64; Self::PROBE as usize]| {
            let mut t = *t;
            let counted = &mut t[Self::WARM..];
            counted.sort_unstable();
            let h = counted.len() / 2;
            counted[h - 1] + counted[h]
        };
        self.alone = median(&self.times[1]) < median(&self.times[0]);
        self.probing = 0;
        self.rounds = 1;
    }

    /// Whether the last probe chose the calling thread alone.
    pub fn alone(&self) -> bool {
        self.alone
    }
}

/// Runs `f(i)` for every `i` in `0..n`, each once, on the calling thread and the hot
/// helpers; returns when all are done. Item 0 runs on the calling thread. A panic in
/// any item is raised here. Inside a [`Gate`] that chose the calling thread alone, all
/// run there, in order.
pub fn for_each(n: usize, f: &(dyn Fn(usize) + Sync)) {
    let workers = rayon::current_num_threads().max(1);
    if n <= 1 || workers == 1 || ALONE.with(|a| a.get()) {
        return (0..n).for_each(f);
    }
    let pool = pool();
    if pool.threads.is_empty() {
        return (0..n).for_each(f);
    }
    let guard = match pool.busy.try_lock() {
        Ok(g) => g,
        // an item panicked in an earlier job: the pool itself is fine
        Err(TryLockError::Poisoned(p)) => p.into_inner(),
        // another thread's job is on the helpers (or this is a nested call): run here
        Err(TryLockError::WouldBlock) => return (0..n).for_each(f),
    };
    let helpers = (workers - 1).min(pool.threads.len());
    let s = pool.shared;
    // SAFETY: `open` is false and we hold `busy`: no helper reads `job` now. The
    // lifetime is erased; `Close` keeps the closure alive until no helper uses it.
    unsafe {
        *s.job.get() = Job {
            f: std::mem::transmute::<&(dyn Fn(usize) + Sync), &'static (dyn Fn(usize) + Sync)>(f),
            n,
            helpers,
        };
    }
    // item 0 is the caller's own (its data is in this core's caches; see [`join`]),
    // the helpers start at 1
    s.next.store(1, SeqCst);
    s.panicked.store(false, SeqCst);
    s.rest.store(false, SeqCst);
    s.open.store(true, SeqCst);
    s.epoch.fetch_add(1, SeqCst);
    // wake the parked helpers that take part
    for (h, t) in pool.threads.iter().enumerate().take(helpers) {
        if s.sleeping[h].load(SeqCst) {
            t.unpark();
        }
    }
    {
        let _close = Close(s);
        f(0);
        loop {
            let i = s.next.fetch_add(1, SeqCst);
            if i >= n {
                break;
            }
            f(i);
        }
    }
    let panicked = s.panicked.load(SeqCst);
    drop(guard);
    if panicked {
        resume_unwind(Box::new("a parallel item panicked"));
    }
}

/// Runs `f` with the library's parallel work (rayon's and this module's) bounded to
/// `threads` threads: how the tests check that results do not depend on the count.
pub fn with_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a rayon thread pool")
        .install(f)
}

/// Lets the helpers park at once rather than spin out [`SPIN`], and waits (at most
/// 10 ms) until they do: for the end of a simulation (`fmi2FreeInstance`), so that no
/// thread still runs this library's code when an importer unloads it.
pub fn rest() {
    let Some(pool) = POOL.get() else { return };
    let s = pool.shared;
    s.rest.store(true, SeqCst);
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(10)
        && !(s.sleeping.iter().all(|z| z.load(SeqCst)) && s.active.load(SeqCst) == 0)
    {
        std::thread::yield_now();
    }
}

/// Runs `a` and `b`, `a` on the calling thread and `b` on a hot helper when one is
/// free (else both here, `a` first), and returns both results. For two pieces of work
/// that share no data: the caller keeps what its caches hold, and `b` should read and
/// write little (moving data between cores costs more than it saves here).
pub fn join<RA: Send, RB: Send>(
    a: impl FnOnce() -> RA + Send,
    b: impl FnOnce() -> RB + Send,
) -> (RA, RB) {
    let (a, b) = (Mutex::new(Some(a)), Mutex::new(Some(b)));
    let (ra, rb) = (Mutex::new(None), Mutex::new(None));
    fn take<T>(m: &Mutex<Option<T>>) -> Option<T> {
        m.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
    fn out<T>(m: Mutex<Option<T>>) -> Option<T> {
        m.into_inner().unwrap_or_else(PoisonError::into_inner)
    }
    for_each(2, &|i| {
        if i == 0 {
            if let Some(f) = take(&a) {
                *ra.lock().unwrap_or_else(PoisonError::into_inner) = Some(f());
            }
        } else if let Some(f) = take(&b) {
            *rb.lock().unwrap_or_else(PoisonError::into_inner) = Some(f());
        }
    });
    // for_each ran both items (a panic in either was raised above)
    match (out(ra), out(rb)) {
        (Some(x), Some(y)) => (x, y),
        _ => unreachable!("parallel::join: an item did not run"),
    }
}

/// [`for_each`] over the items of a slice, each borrowed mutably by one call.
pub fn for_each_mut<T: Send>(items: &mut [T], f: impl Fn(usize, &mut T) + Sync) {
    struct Ptr<T>(*mut T);
    // SAFETY: each index is handed out once (`for_each`), so no two calls alias
    unsafe impl<T: Send> Sync for Ptr<T> {}
    let base = Ptr(items.as_mut_ptr());
    let n = items.len();
    for_each(n, &|i| {
        let base = &base;
        f(i, unsafe { &mut *base.0.add(i) })
    });
}

/// A job over `items` that read and then change a shared `state`: for every item, in
/// parallel, `read(i, item, &state)` and then `work(i, item)`; and for each item, in
/// item order, `commit(i, item, &mut state)`, as soon as it and every item before it
/// are done, on the thread that finished the last of them. So commits overlap the
/// work of later items instead of waiting for all of it.
///
/// Reads and commits exclude each other (a read-write lock; `work` runs unlocked), and
/// commits run in item order, one at a time. The caller guarantees that no item reads
/// what another item's commit writes: then the outcome is that of reading, working
/// and committing item after item, whatever the timing.
pub fn for_each_ordered_commit<T: Send, S: Send + Sync>(
    items: &mut [T],
    state: &mut S,
    read: impl Fn(usize, &mut T, &S) + Sync,
    work: impl Fn(usize, &mut T) + Sync,
    commit: impl Fn(usize, &mut T, &mut S) + Sync,
) {
    let n = items.len();
    if n > 64 {
        // more items than ready bits: all work first, then the commits
        let shared: &S = state;
        for_each_mut(items, |i, t| {
            read(i, t, shared);
            work(i, t);
        });
        for (i, t) in items.iter_mut().enumerate() {
            commit(i, t, state);
        }
        return;
    }
    struct Ptr<T>(*mut T);
    // SAFETY: see the two uses below
    unsafe impl<T: Send> Sync for Ptr<T> {}
    let base = Ptr(items.as_mut_ptr());
    // the state and the next item to commit
    let lock = RwLock::new((state, 0usize));
    let ready = AtomicU64::new(0);
    for_each(n, &|i| {
        let base = &base;
        {
            // SAFETY: `for_each` hands out each index once, and nothing else touches
            // item i until its ready bit is set below, after this borrow ends
            let t = unsafe { &mut *base.0.add(i) };
            let g = lock.read().unwrap_or_else(PoisonError::into_inner);
            read(i, t, &*g.0);
            drop(g);
            work(i, t);
        }
        ready.fetch_or(1 << i, SeqCst);
        let mut g = lock.write().unwrap_or_else(PoisonError::into_inner);
        let (s, next) = &mut *g;
        while *next < n && ready.load(SeqCst) >> *next & 1 == 1 {
            // SAFETY: item `next` is done (no other reference to it is left), and the
            // write lock lets only one commit take it, once (`next` moves past it)
            let t = unsafe { &mut *base.0.add(*next) };
            commit(*next, t, s);
            *next += 1;
        }
    });
}

/// [`for_each`] over chunks `c` of `chunk` items of a slice, each with its own slot:
/// `f(c, &mut items[c * chunk..], &mut slots[c])`, each chunk up to `chunk` long and
/// one slot per chunk; and `beside` as one more item, whose result it returns. The
/// calling thread starts with chunk 0 and a helper with `beside` (item 1), then each
/// takes the next chunk in order as it comes free: a helper's first item writes no
/// slot the caller reads next. (SCM's node forces at 5 mm, together with the helper
/// writing its chunks into a buffer of its own: 1.4-1.9 µs less a step; that buffer
/// with `beside` last: no change. docs/models/scm.md, Session 76.)
pub fn for_each_chunk<A: Send, S: Send, R: Send>(
    items: &mut [A],
    chunk: usize,
    slots: &mut [S],
    f: impl Fn(usize, &mut [A], &mut S) + Sync,
    beside: impl FnOnce() -> R + Send,
) -> R {
    assert!(chunk > 0, "for_each_chunk: empty chunks");
    let n = items.len();
    let chunks = slots.len();
    assert_eq!(chunks, n.div_ceil(chunk), "for_each_chunk: one slot per chunk");
    struct Ptr<A, S>(*mut A, *mut S);
    // SAFETY: chunk c covers c * chunk .. (c + 1) * chunk of the items and slot c only,
    // and each c is handed out once (`for_each`): no two calls alias
    unsafe impl<A: Send, S: Send> Sync for Ptr<A, S> {}
    let base = Ptr(items.as_mut_ptr(), slots.as_mut_ptr());
    let (beside, out) = (Mutex::new(Some(beside)), Mutex::new(None));
    for_each(chunks + 1, &|i| {
        // item 1 is the job beside (chunk index `chunks`), the others the chunks in order
        let c = match i {
            0 => 0,
            1 => chunks,
            i => i - 1,
        };
        if c == chunks {
            let job = beside.lock().unwrap_or_else(PoisonError::into_inner).take();
            if let Some(job) = job {
                *out.lock().unwrap_or_else(PoisonError::into_inner) = Some(job());
            }
            return;
        }
        let base = &base;
        let (start, len) = (c * chunk, chunk.min(n - c * chunk));
        let (sa, slot) = unsafe {
            (
                std::slice::from_raw_parts_mut(base.0.add(start), len),
                &mut *base.1.add(c),
            )
        };
        f(c, sa, slot)
    });
    // for_each ran every item (a panic in one was raised above)
    out.into_inner()
        .unwrap_or_else(PoisonError::into_inner)
        .expect("parallel::for_each_chunk: the job beside did not run")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The gate keeps the way whose probe rounds took less time, probes again after
    /// [`Gate::EVERY`] rounds, and inside a round it chose alone every item runs on
    /// the caller. The
    /// times are given (with the helpers 1 ms a round, alone 2 ms, then the reverse),
    /// so the test does not depend on this machine's speed or on other tests holding
    /// the helpers.
    #[test]
    fn the_gate_keeps_the_way_that_took_less_time() {
        let mut gate = Gate::default();
        let caller = std::thread::current().id();
        let round = |gate: &mut Gate, helpers_ns: u64, alone_ns: u64| {
            let alone = gate.chosen_alone();
            let off_caller = AtomicUsize::new(0);
            gate.run(|| {
                for_each(8, &|_| {
                    if std::thread::current().id() != caller {
                        off_caller.fetch_add(1, SeqCst);
                    }
                })
            });
            if alone {
                assert_eq!(off_caller.load(SeqCst), 0, "an item left the caller");
            }
            gate.record(if alone { alone_ns } else { helpers_ns });
        };
        for _ in 0..2 * Gate::PROBE {
            round(&mut gate, 1_000_000, 2_000_000);
        }
        assert!(!gate.alone(), "with the helpers took half the time");
        for _ in 1..Gate::EVERY {
            round(&mut gate, 2_000_000, 1_000_000);
        }
        assert!(!gate.alone(), "no probe before EVERY rounds");
        for _ in 0..2 * Gate::PROBE {
            round(&mut gate, 2_000_000, 1_000_000);
        }
        assert!(gate.alone(), "alone took half the time");
        for _ in 0..10 {
            round(&mut gate, 2_000_000, 1_000_000);
        }
    }

    #[test]
    fn join_returns_both_results_and_raises_a_panic_of_either() {
        for _ in 0..100 {
            let mut x = vec![0u64; 100];
            let (a, ()) = join(
                || (0..1000u64).sum::<u64>(),
                || x.iter_mut().for_each(|v| *v += 1),
            );
            assert_eq!(a, 499_500);
            assert!(x.iter().all(|&v| v == 1));
        }
        for side in [0, 1] {
            let r = catch_unwind(|| {
                join(
                    || assert!(side != 0, "first"),
                    || assert!(side != 1, "second"),
                )
            });
            assert!(r.is_err(), "a panic of side {side} reaches the caller");
        }
        // the pool still works
        assert_eq!(join(|| 1, || 2), (1, 2));
    }

    #[test]
    fn every_item_runs_once_and_panics_reach_the_caller() {
        for n in [0, 1, 2, 7, 1000] {
            let mut hits = vec![0u32; n];
            for_each_mut(&mut hits, |i, h| *h += i as u32 + 1);
            assert!(hits.iter().enumerate().all(|(i, &h)| h == i as u32 + 1));
        }
        // jobs back to back and after the helpers parked
        for pause in [0, 3] {
            std::thread::sleep(Duration::from_millis(pause));
            let sum = AtomicUsize::new(0);
            for_each(100, &|i| {
                sum.fetch_add(i, SeqCst);
            });
            assert_eq!(sum.load(SeqCst), 4950);
        }
        rest();
        let r = catch_unwind(|| {
            for_each(64, &|i| {
                if i == 40 {
                    panic!("item 40");
                }
            })
        });
        assert!(r.is_err());
        for n in [0, 5, 64, 65, 1000] {
            let (mut a, mut b) = (vec![0usize; n], vec![0usize; n.div_ceil(16)]);
            let beside = for_each_chunk(
                &mut a,
                16,
                &mut b,
                |c, x, y| {
                    for (k, x) in x.iter_mut().enumerate() {
                        *x = c * 16 + k;
                    }
                    *y = c + 1;
                },
                || n + 7,
            );
            assert_eq!(beside, n + 7);
            assert!(a.iter().enumerate().all(|(i, &x)| x == i));
            assert!(b.iter().enumerate().all(|(c, &y)| y == c + 1));
        }
        // ordered commits: each item reads its own cell of the state, works on it
        // (unevenly long, so later items often finish first) and writes it back, in
        // item order
        for n in [0, 1, 2, 6, 64, 65, 200] {
            let mut items = vec![0usize; n];
            let mut state: (Vec<usize>, Vec<usize>) = ((0..n).map(|i| 10 * i).collect(), vec![]);
            for_each_ordered_commit(
                &mut items,
                &mut state,
                |i, t, s| *t = s.0[i],
                |i, t| {
                    for b in 0..(n - i) * 300 {
                        std::hint::black_box(b);
                    }
                    *t += 1;
                },
                |i, t, s| {
                    s.0[i] = *t;
                    s.1.push(i);
                },
            );
            assert!(state.0.iter().enumerate().all(|(i, &c)| c == 10 * i + 1));
            assert_eq!(state.1, (0..n).collect::<Vec<_>>());
        }
        // still usable after a panic
        let mut v = vec![1.0; 10];
        for_each_mut(&mut v, |_, x| *x *= 2.0);
        assert_eq!(v, vec![2.0; 10]);
    }
}
