//! The FMI 2.0 and 3.0 Co-Simulation runtime of contact-fmu: a cdylib exporting the
//! `fmi2*` C API and, in [`fmi3`], the `fmi3*` one. Thin: C arguments in,
//! [`contact_fmu::cosim::World`] calls, status codes out.
//!
//! Every exported function checks its pointers, checks the FMI state machine in one
//! prologue ([`call`]), and catches panics: nothing unwinds into the importer. There
//! is no global mutable state; each `fmi2Component` is an independent [`Instance`].
//!
//! The packager copies this library, unchanged, to `binaries/linux64/<modelIdentifier>.so`
//! of every FMU; at fmi2Instantiate it reads `resources/scenario.json`.
#![allow(non_snake_case, clippy::missing_safety_doc)]

pub mod fmi2_types;
pub mod fmi3;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod glibc_math;
pub mod instance;
pub mod logger;
mod platform_bits;
pub mod resource_uri;
pub mod state_machine;

use contact_fmu::cosim::snapshot;
use fmi2_types::*;
use instance::{owner_of, Instance, SavedState, SAVED_STATE_MAGIC};
use logger::{Category, Logger};
use state_machine::{allowed, Mask, State};
use std::ffi::{CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Text of a caught panic.
fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".into()
    }
}

/// The prologue of every instance function: NULL check, state check, panic guard.
/// `body` returns a status, or a message for fmi2Error (the instance goes to Error).
pub(crate) unsafe fn call(
    c: fmi2Component,
    func: &str,
    allowed: Mask,
    body: impl FnOnce(&mut Instance) -> Result<fmi2Status, String>,
) -> fmi2Status {
    if c.is_null() {
        return FMI2_ERROR;
    }
    let inst = &mut *(c as *mut Instance);
    let result = catch_unwind(AssertUnwindSafe(|| {
        let fmi3 = inst.fmi3.is_some();
        if inst.logger.is_on(Category::Calls) {
            inst.logger.log(
                FMI2_OK,
                Category::Calls,
                &format!("{func} (state {})", inst.state.name_in(fmi3)),
            );
        }
        if inst.test_panic.as_deref() == Some(func) {
            panic!("a test panic in {func} (CONTACT_FMU_TEST_PANIC)");
        }
        if inst.state as Mask & allowed == 0 {
            inst.error(&format!(
                "{func}: illegal call sequence: not allowed in state {}, only in {}",
                inst.state.name_in(fmi3),
                state_machine::names_in(allowed, fmi3)
            ));
            inst.state = State::Error;
            return FMI2_ERROR;
        }
        match body(inst) {
            Ok(status) => status,
            Err(message) => {
                inst.error(&format!("{func}: {message}"));
                inst.state = State::Error;
                FMI2_ERROR
            }
        }
    }));
    match result {
        Ok(status) => status,
        Err(p) => {
            let text = panic_text(p.as_ref());
            // Logging itself must not unwind either.
            let _ = catch_unwind(AssertUnwindSafe(|| {
                inst.error(&format!("{func}: internal error (panic): {text}"))
            }));
            inst.state = State::Error;
            FMI2_ERROR
        }
    }
}

/// A C array as a slice; NULL is fine for length 0.
pub(crate) unsafe fn slice<'a, T>(p: *const T, n: usize, what: &str) -> Result<&'a [T], String> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(format!("{what} is NULL (with {n} elements)"));
    }
    Ok(std::slice::from_raw_parts(p, n))
}

pub(crate) unsafe fn slice_mut<'a, T>(p: *mut T, n: usize, what: &str) -> Result<&'a mut [T], String> {
    if n == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        return Err(format!("{what} is NULL (with {n} elements)"));
    }
    Ok(std::slice::from_raw_parts_mut(p, n))
}

pub(crate) unsafe fn c_str<'a>(p: fmi2String, what: &str) -> Result<&'a str, String> {
    if p.is_null() {
        return Err(format!("{what} is NULL"));
    }
    CStr::from_ptr(p)
        .to_str()
        .map_err(|_| format!("{what} is not valid UTF-8"))
}

// ---------------------------------------------------------------------------------
// Inquire version numbers and platform

#[no_mangle]
pub extern "C" fn fmi2GetTypesPlatform() -> *const fmi2Char {
    c"default".as_ptr()
}

#[no_mangle]
pub extern "C" fn fmi2GetVersion() -> *const fmi2Char {
    c"2.0".as_ptr()
}

#[no_mangle]
pub unsafe extern "C" fn fmi2SetDebugLogging(
    c: fmi2Component,
    loggingOn: fmi2Boolean,
    nCategories: usize,
    categories: *const fmi2String,
) -> fmi2Status {
    set_debug_logging(
        c,
        "fmi2SetDebugLogging",
        loggingOn != FMI2_FALSE,
        nCategories,
        categories,
    )
}

/// fmi2SetDebugLogging and fmi3SetDebugLogging (`func`): the categories `categories`
/// (`n` C strings; none: all) on or off.
pub(crate) unsafe fn set_debug_logging(
    c: fmi2Component,
    func: &str,
    on: bool,
    n: usize,
    categories: *const fmi2String,
) -> fmi2Status {
    call(c, func, allowed::SET_DEBUG_LOGGING, |inst| {
        let ptrs = slice(categories, n, "categories")?;
        let mut names = Vec::with_capacity(ptrs.len());
        for (i, p) in ptrs.iter().enumerate() {
            names.push(c_str(*p, &format!("categories[{i}]"))?.to_string());
        }
        inst.logger.set_categories(on, &names)?;
        Ok(FMI2_OK)
    })
}

// ---------------------------------------------------------------------------------
// Creation and destruction

#[no_mangle]
pub unsafe extern "C" fn fmi2Instantiate(
    instanceName: fmi2String,
    fmuType: fmi2Type,
    fmuGUID: fmi2String,
    fmuResourceLocation: fmi2String,
    functions: *const fmi2CallbackFunctions,
    _visible: fmi2Boolean,
    loggingOn: fmi2Boolean,
) -> fmi2Component {
    if functions.is_null() {
        return std::ptr::null_mut();
    }
    let functions = *functions;
    let result = catch_unwind(AssertUnwindSafe(|| {
        let name = match c_str(instanceName, "instanceName") {
            Ok(n) if !n.trim().is_empty() => n.to_string(),
            Ok(_) => String::from("?"),
            Err(_) => String::from("?"),
        };
        let logger = Logger::new(&functions, &name, loggingOn != FMI2_FALSE);
        let fail = |msg: String| {
            logger.log(
                FMI2_ERROR,
                Category::Error,
                &format!("fmi2Instantiate: {msg}"),
            );
            std::ptr::null_mut()
        };
        if name == "?" {
            return fail("instanceName must be a non-empty string".into());
        }
        if fmuType != FMI2_COSIMULATION {
            return fail(format!(
                "fmuType {fmuType}: this FMU supports Co-Simulation (fmi2CoSimulation = 1) only"
            ));
        }
        let guid = match c_str(fmuGUID, "fmuGUID") {
            Ok(g) => g.to_string(),
            Err(e) => return fail(e),
        };
        let dir = match c_str(fmuResourceLocation, "fmuResourceLocation")
            .and_then(resource_uri::resource_dir)
        {
            Ok(d) => d,
            Err(e) => return fail(e),
        };
        match Instance::new(&name, &guid, &dir, logger) {
            Ok(inst) => {
                inst.event(&format!(
                    "instantiated from {} ({} variables)",
                    dir.display(),
                    inst.world.table().variables.len()
                ));
                Box::into_raw(Box::new(inst)) as fmi2Component
            }
            Err(e) => {
                // The logger moved into the failed constructor; make a new one.
                let logger = Logger::new(&functions, &name, loggingOn != FMI2_FALSE);
                logger.log(
                    FMI2_ERROR,
                    Category::Error,
                    &format!("fmi2Instantiate: {e}"),
                );
                std::ptr::null_mut()
            }
        }
    }));
    result.unwrap_or(std::ptr::null_mut())
}

#[no_mangle]
pub unsafe extern "C" fn fmi2FreeInstance(c: fmi2Component) {
    if c.is_null() {
        return;
    }
    let _ = catch_unwind(AssertUnwindSafe(|| {
        drop(Box::from_raw(c as *mut Instance));
        // no helper thread spins on in this library after the last call into it
        contact_fmu::parallel::rest();
    }));
}

// ---------------------------------------------------------------------------------
// Initialization, termination, reset

#[no_mangle]
pub unsafe extern "C" fn fmi2SetupExperiment(
    c: fmi2Component,
    toleranceDefined: fmi2Boolean,
    tolerance: fmi2Real,
    startTime: fmi2Real,
    stopTimeDefined: fmi2Boolean,
    stopTime: fmi2Real,
) -> fmi2Status {
    call(
        c,
        "fmi2SetupExperiment",
        allowed::SETUP_EXPERIMENT,
        |inst| {
            setup_experiment(
                inst,
                toleranceDefined != FMI2_FALSE,
                tolerance,
                startTime,
                (stopTimeDefined != FMI2_FALSE).then_some(stopTime),
            )
        },
    )
}

/// fmi2SetupExperiment (and the first half of fmi3EnterInitializationMode): the start
/// time, the stop time if defined; a tolerance is noted and ignored.
pub(crate) fn setup_experiment(
    inst: &mut Instance,
    tolerance_defined: bool,
    tolerance: f64,
    start_time: f64,
    stop_time: Option<f64>,
) -> Result<fmi2Status, String> {
    if !start_time.is_finite() {
        return Err(format!("startTime = {start_time} is not finite"));
    }
    if let Some(stop) = stop_time {
        if !(stop.is_finite() && stop >= start_time) {
            return Err(format!(
                "stopTime = {stop} must be finite and >= startTime = {start_time}"
            ));
        }
    }
    inst.stop_time = stop_time;
    inst.world.set_time(start_time);
    if tolerance_defined {
        inst.event(&format!("tolerance {tolerance} ignored: the models step with fixed sub-steps of world.model_step"));
    }
    Ok(FMI2_OK)
}

#[no_mangle]
pub unsafe extern "C" fn fmi2EnterInitializationMode(c: fmi2Component) -> fmi2Status {
    call(
        c,
        "fmi2EnterInitializationMode",
        allowed::ENTER_INITIALIZATION_MODE,
        |inst| {
            inst.world.enter_initialization();
            inst.state = State::InitializationMode;
            Ok(FMI2_OK)
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn fmi2ExitInitializationMode(c: fmi2Component) -> fmi2Status {
    call(
        c,
        "fmi2ExitInitializationMode",
        allowed::EXIT_INITIALIZATION_MODE,
        exit_initialization,
    )
}

/// fmi2ExitInitializationMode and fmi3ExitInitializationMode.
pub(crate) fn exit_initialization(inst: &mut Instance) -> Result<fmi2Status, String> {
    inst.world
        .exit_initialization()
        .map_err(|e| e.to_string())?;
    inst.state = State::StepComplete;
    inst.event(&format!("initialized at t = {}", inst.world.time()));
    Ok(FMI2_OK)
}

#[no_mangle]
pub unsafe extern "C" fn fmi2Terminate(c: fmi2Component) -> fmi2Status {
    call(c, "fmi2Terminate", allowed::TERMINATE, terminate)
}

/// fmi2Terminate and fmi3Terminate.
pub(crate) fn terminate(inst: &mut Instance) -> Result<fmi2Status, String> {
    inst.state = State::Terminated;
    if let Some(stem) = inst.world.terminate().map_err(|e| e.to_string())? {
        inst.event(&format!("soil surface exported to {stem}.png/.ply/.json"));
    }
    inst.event(&format!("terminated at t = {}", inst.world.time()));
    Ok(FMI2_OK)
}

#[no_mangle]
pub unsafe extern "C" fn fmi2Reset(c: fmi2Component) -> fmi2Status {
    call(c, "fmi2Reset", allowed::RESET, |inst| {
        inst.reset()?;
        inst.event("reset to the state after fmi2Instantiate");
        Ok(FMI2_OK)
    })
}

// ---------------------------------------------------------------------------------
// Getting and setting variable values

#[no_mangle]
pub unsafe extern "C" fn fmi2GetReal(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *mut fmi2Real,
) -> fmi2Status {
    call(c, "fmi2GetReal", allowed::GET_VALUES, |inst| {
        let vrs = slice(vr, nvr, "vr")?;
        let out = slice_mut(value, nvr, "value")?;
        inst.world.get_reals(vrs, out).map_err(|e| e.to_string())?;
        Ok(FMI2_OK)
    })
}

#[no_mangle]
pub unsafe extern "C" fn fmi2GetInteger(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *mut fmi2Integer,
) -> fmi2Status {
    call(c, "fmi2GetInteger", allowed::GET_VALUES, |inst| {
        let vrs = slice(vr, nvr, "vr")?;
        let out = slice_mut(value, nvr, "value")?;
        inst.world
            .get_integers(vrs, out)
            .map_err(|e| e.to_string())?;
        Ok(FMI2_OK)
    })
}

#[no_mangle]
pub unsafe extern "C" fn fmi2GetBoolean(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *mut fmi2Boolean,
) -> fmi2Status {
    call(c, "fmi2GetBoolean", allowed::GET_VALUES, |inst| {
        let vrs = slice(vr, nvr, "vr")?;
        let out = slice_mut(value, nvr, "value")?;
        for (o, v) in out.iter_mut().zip(vrs) {
            let mut b = [false];
            inst.world
                .get_booleans(std::slice::from_ref(v), &mut b)
                .map_err(|e| e.to_string())?;
            *o = if b[0] { FMI2_TRUE } else { FMI2_FALSE };
        }
        Ok(FMI2_OK)
    })
}

#[no_mangle]
pub unsafe extern "C" fn fmi2GetString(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *mut fmi2String,
) -> fmi2Status {
    call(c, "fmi2GetString", allowed::GET_VALUES, |inst| {
        let vrs = slice(vr, nvr, "vr")?;
        let out = slice_mut(value, nvr, "value")?;
        inst.string_buffer.clear();
        for &v in vrs {
            let s = inst.world.get_string(v).map_err(|e| e.to_string())?;
            inst.string_buffer
                .push(CString::new(s.replace('\0', "")).unwrap_or_default());
        }
        for (o, s) in out.iter_mut().zip(&inst.string_buffer) {
            *o = s.as_ptr();
        }
        Ok(FMI2_OK)
    })
}

#[no_mangle]
pub unsafe extern "C" fn fmi2SetReal(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *const fmi2Real,
) -> fmi2Status {
    call(c, "fmi2SetReal", allowed::SET_VALUES, |inst| {
        let vrs = slice(vr, nvr, "vr")?;
        let vals = slice(value, nvr, "value")?;
        let phase = inst.phase();
        inst.world
            .set_reals(vrs, vals, phase)
            .map_err(|e| e.to_string())?;
        Ok(FMI2_OK)
    })
}

#[no_mangle]
pub unsafe extern "C" fn fmi2SetInteger(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *const fmi2Integer,
) -> fmi2Status {
    call(c, "fmi2SetInteger", allowed::SET_VALUES, |inst| {
        let vrs = slice(vr, nvr, "vr")?;
        let vals = slice(value, nvr, "value")?;
        let phase = inst.phase();
        inst.world
            .set_integers(vrs, vals, phase)
            .map_err(|e| e.to_string())?;
        Ok(FMI2_OK)
    })
}

#[no_mangle]
pub unsafe extern "C" fn fmi2SetBoolean(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *const fmi2Boolean,
) -> fmi2Status {
    call(c, "fmi2SetBoolean", allowed::SET_VALUES, |inst| {
        let vrs = slice(vr, nvr, "vr")?;
        let vals: Vec<bool> = slice(value, nvr, "value")?
            .iter()
            .map(|&b| b != FMI2_FALSE)
            .collect();
        let phase = inst.phase();
        inst.world
            .set_booleans(vrs, &vals, phase)
            .map_err(|e| e.to_string())?;
        Ok(FMI2_OK)
    })
}

#[no_mangle]
pub unsafe extern "C" fn fmi2SetString(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *const fmi2String,
) -> fmi2Status {
    call(c, "fmi2SetString", allowed::SET_VALUES, |inst| {
        let vrs = slice(vr, nvr, "vr")?;
        let ptrs = slice(value, nvr, "value")?;
        let mut vals = Vec::with_capacity(nvr);
        for (i, p) in ptrs.iter().enumerate() {
            vals.push(c_str(*p, &format!("value[{i}]"))?.to_string());
        }
        let phase = inst.phase();
        inst.world
            .set_strings(vrs, &vals, phase)
            .map_err(|e| e.to_string())?;
        Ok(FMI2_OK)
    })
}

// ---------------------------------------------------------------------------------
// FMU state: get, set, free, serialize

/// The FMU state behind `p`, if this FMU (GUID `guid`) made it. Only the two header
/// words are read until both match: a state of another FMU, even of another build of
/// this runtime with another layout, is refused without touching the rest of it.
unsafe fn saved<'a>(p: fmi2FMUstate, guid: &str) -> Result<&'a mut SavedState, String> {
    if p.is_null() {
        return Err("FMUstate is NULL".into());
    }
    let header = p as *const u64;
    if std::ptr::read_unaligned(header) != SAVED_STATE_MAGIC {
        return Err(format!(
            "FMUstate {p:?} was not made by fmi2GetFMUstate or fmi2DeSerializeFMUstate of a contact-fmu FMU"
        ));
    }
    if std::ptr::read_unaligned(header.add(1)) != owner_of(guid) {
        return Err(format!(
            "FMUstate {p:?} belongs to another FMU (not to GUID {guid}); states cannot move between FMUs"
        ));
    }
    Ok(&mut *(p as *mut SavedState))
}

#[no_mangle]
pub unsafe extern "C" fn fmi2GetFMUstate(
    c: fmi2Component,
    FMUstate: *mut fmi2FMUstate,
) -> fmi2Status {
    get_fmu_state(c, "fmi2GetFMUstate", FMUstate)
}

/// fmi2GetFMUstate and fmi3GetFMUState.
pub(crate) unsafe fn get_fmu_state(
    c: fmi2Component,
    func: &str,
    FMUstate: *mut fmi2FMUstate,
) -> fmi2Status {
    call(c, func, allowed::FMU_STATE, |inst| {
        if FMUstate.is_null() {
            return Err("FMUstate is NULL".into());
        }
        if (*FMUstate).is_null() {
            let s = Box::new(SavedState {
                magic: SAVED_STATE_MAGIC,
                owner: owner_of(&inst.guid),
                state: inst.state,
                dynamic: inst.world.snapshot(),
            });
            *FMUstate = Box::into_raw(s) as fmi2FMUstate;
        } else {
            // Overwrite the given state, reusing its buffers.
            let s = saved(*FMUstate, &inst.guid)?;
            s.state = inst.state;
            inst.world.snapshot_into(&mut s.dynamic);
        }
        inst.event(&format!("FMU state saved at t = {}", inst.world.time()));
        Ok(FMI2_OK)
    })
}

#[no_mangle]
pub unsafe extern "C" fn fmi2SetFMUstate(c: fmi2Component, FMUstate: fmi2FMUstate) -> fmi2Status {
    set_fmu_state(c, "fmi2SetFMUstate", FMUstate)
}

/// fmi2SetFMUstate and fmi3SetFMUState.
pub(crate) unsafe fn set_fmu_state(
    c: fmi2Component,
    func: &str,
    FMUstate: fmi2FMUstate,
) -> fmi2Status {
    call(c, func, allowed::FMU_STATE, |inst| {
        let s = saved(FMUstate, &inst.guid)?;
        inst.world.restore(&s.dynamic)?;
        inst.state = s.state;
        inst.event(&format!(
            "FMU state restored: t = {}, state {}",
            inst.world.time(),
            inst.state.name()
        ));
        Ok(FMI2_OK)
    })
}

#[no_mangle]
pub unsafe extern "C" fn fmi2FreeFMUstate(
    c: fmi2Component,
    FMUstate: *mut fmi2FMUstate,
) -> fmi2Status {
    free_fmu_state(c, "fmi2FreeFMUstate", FMUstate)
}

/// fmi2FreeFMUstate and fmi3FreeFMUState.
pub(crate) unsafe fn free_fmu_state(
    c: fmi2Component,
    func: &str,
    FMUstate: *mut fmi2FMUstate,
) -> fmi2Status {
    call(c, func, allowed::FMU_STATE, |inst| {
        if FMUstate.is_null() {
            return Err("FMUstate is NULL".into());
        }
        if !(*FMUstate).is_null() {
            saved(*FMUstate, &inst.guid)?;
            drop(Box::from_raw(*FMUstate as *mut SavedState));
            *FMUstate = std::ptr::null_mut();
        }
        Ok(FMI2_OK)
    })
}

#[no_mangle]
pub unsafe extern "C" fn fmi2SerializedFMUstateSize(
    c: fmi2Component,
    FMUstate: fmi2FMUstate,
    size: *mut usize,
) -> fmi2Status {
    serialized_size(c, "fmi2SerializedFMUstateSize", FMUstate, size)
}

/// fmi2SerializedFMUstateSize and fmi3SerializedFMUStateSize.
pub(crate) unsafe fn serialized_size(
    c: fmi2Component,
    func: &str,
    FMUstate: fmi2FMUstate,
    size: *mut usize,
) -> fmi2Status {
    call(
        c,
        func,
        allowed::FMU_STATE,
        |inst| {
            if size.is_null() {
                return Err("size is NULL".into());
            }
            let s = saved(FMUstate, &inst.guid)?;
            *size = snapshot::encode(&inst.guid, s.state.tag(), &s.dynamic).len();
            Ok(FMI2_OK)
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn fmi2SerializeFMUstate(
    c: fmi2Component,
    FMUstate: fmi2FMUstate,
    serializedState: *mut fmi2Byte,
    size: usize,
) -> fmi2Status {
    serialize(c, "fmi2SerializeFMUstate", FMUstate, serializedState as *mut u8, size)
}

/// fmi2SerializeFMUstate and fmi3SerializeFMUState.
pub(crate) unsafe fn serialize(
    c: fmi2Component,
    func: &str,
    FMUstate: fmi2FMUstate,
    serializedState: *mut u8,
    size: usize,
) -> fmi2Status {
    call(c, func, allowed::FMU_STATE, |inst| {
        let s = saved(FMUstate, &inst.guid)?;
        let bytes = snapshot::encode(&inst.guid, s.state.tag(), &s.dynamic);
        if size < bytes.len() {
            return Err(format!("buffer of {size} bytes is too small: the state needs {} (ask fmi2SerializedFMUstateSize)", bytes.len()));
        }
        let out = slice_mut(serializedState, bytes.len(), "serializedState")?;
        out.copy_from_slice(&bytes);
        Ok(FMI2_OK)
    })
}

#[no_mangle]
pub unsafe extern "C" fn fmi2DeSerializeFMUstate(
    c: fmi2Component,
    serializedState: *const fmi2Byte,
    size: usize,
    FMUstate: *mut fmi2FMUstate,
) -> fmi2Status {
    deserialize(c, "fmi2DeSerializeFMUstate", serializedState as *const u8, size, FMUstate)
}

/// fmi2DeSerializeFMUstate and fmi3DeserializeFMUState.
pub(crate) unsafe fn deserialize(
    c: fmi2Component,
    func: &str,
    serializedState: *const u8,
    size: usize,
    FMUstate: *mut fmi2FMUstate,
) -> fmi2Status {
    call(c, func, allowed::FMU_STATE, |inst| {
        if FMUstate.is_null() {
            return Err("FMUstate is NULL".into());
        }
        let bytes = slice(serializedState, size, "serializedState")?;
        let (tag, dynamic) = snapshot::decode(&inst.guid, bytes)?;
        let state = State::from_tag(tag).ok_or_else(|| {
            format!("the serialized FMU state has an unknown FMI state tag {tag}")
        })?;
        let dynamic = inst.world.adopt(dynamic)?;
        let s = Box::new(SavedState {
            magic: SAVED_STATE_MAGIC,
            owner: owner_of(&inst.guid),
            state,
            dynamic,
        });
        if !(*FMUstate).is_null() {
            saved(*FMUstate, &inst.guid)?;
            drop(Box::from_raw(*FMUstate as *mut SavedState));
        }
        *FMUstate = Box::into_raw(s) as fmi2FMUstate;
        Ok(FMI2_OK)
    })
}

// ---------------------------------------------------------------------------------
// Derivatives (not provided; the capability flags say so)

#[no_mangle]
pub unsafe extern "C" fn fmi2GetDirectionalDerivative(
    c: fmi2Component,
    _vUnknown_ref: *const fmi2ValueReference,
    _nUnknown: usize,
    _vKnown_ref: *const fmi2ValueReference,
    _nKnown: usize,
    _dvKnown: *const fmi2Real,
    _dvUnknown: *mut fmi2Real,
) -> fmi2Status {
    call(
        c,
        "fmi2GetDirectionalDerivative",
        allowed::GET_DIRECTIONAL_DERIVATIVE,
        |_| {
            Err("not provided by this FMU (providesDirectionalDerivative=\"false\" in modelDescription.xml)".into())
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn fmi2SetRealInputDerivatives(
    c: fmi2Component,
    _vr: *const fmi2ValueReference,
    _nvr: usize,
    _order: *const fmi2Integer,
    _value: *const fmi2Real,
) -> fmi2Status {
    call(
        c,
        "fmi2SetRealInputDerivatives",
        allowed::SET_REAL_INPUT_DERIVATIVES,
        |_| {
            Err("input derivatives are not used: inputs are held constant over a step (canInterpolateInputs=\"false\")".into())
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn fmi2GetRealOutputDerivatives(
    c: fmi2Component,
    _vr: *const fmi2ValueReference,
    _nvr: usize,
    _order: *const fmi2Integer,
    _value: *mut fmi2Real,
) -> fmi2Status {
    call(
        c,
        "fmi2GetRealOutputDerivatives",
        allowed::GET_REAL_OUTPUT_DERIVATIVES,
        |_| Err("output derivatives are not provided (maxOutputDerivativeOrder=\"0\")".into()),
    )
}

// ---------------------------------------------------------------------------------
// Stepping

/// Relative tolerance for `currentCommunicationPoint`: masters accumulate rounding.
const TIME_RTOL: f64 = 1e-9;

#[no_mangle]
pub unsafe extern "C" fn fmi2DoStep(
    c: fmi2Component,
    currentCommunicationPoint: fmi2Real,
    communicationStepSize: fmi2Real,
    _noSetFMUStatePriorToCurrentPoint: fmi2Boolean,
) -> fmi2Status {
    call(c, "fmi2DoStep", allowed::DO_STEP, |inst| {
        step(inst, currentCommunicationPoint, communicationStepSize)
    })
}

/// fmi2DoStep and fmi3DoStep: one communication step from `t` by `h`, s.
pub(crate) fn step(inst: &mut Instance, t: f64, h: f64) -> Result<fmi2Status, String> {
    {
        if !(h > 0.0 && h.is_finite()) {
            return Err(format!(
                "communicationStepSize must be > 0 and finite, got {h}"
            ));
        }
        let expected = inst.world.time();
        let tol = (TIME_RTOL * expected.abs().max(1.0)).min(0.25 * h);
        if !t.is_finite() || (t - expected).abs() > tol {
            return Err(format!(
                "expected currentCommunicationPoint = {expected} but was {t}"
            ));
        }
        if let Some(stop) = inst.stop_time {
            let stop_tol = TIME_RTOL * stop.abs().max(1.0);
            if t + h > stop + stop_tol.max(1e-6 * h) {
                return Err(format!(
                    "step from {t} by {h} goes beyond stopTime = {stop}"
                ));
            }
        }
        // Follow the master's clock: no drift between its time and ours.
        inst.world.set_time(t);
        inst.world.do_step(h).map_err(|e| e.to_string())?;
        // things the models want the user to know (e.g. a PCM penetration near u_max):
        // logged, and the step returns fmi2Warning as FMI 2.0 section 2.1.3 asks
        let warnings = inst.world.take_warnings();
        for w in &warnings {
            inst.logger.log(FMI2_WARNING, Category::Warning, w);
        }
        Ok(if warnings.is_empty() {
            FMI2_OK
        } else {
            FMI2_WARNING
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi2CancelStep(c: fmi2Component) -> fmi2Status {
    // fmi2DoStep always completes synchronously, so there is never a step to cancel:
    // the state check refuses the call.
    call(c, "fmi2CancelStep", allowed::CANCEL_STEP, |_| Ok(FMI2_OK))
}

// ---------------------------------------------------------------------------------
// Status

#[no_mangle]
pub unsafe extern "C" fn fmi2GetStatus(
    c: fmi2Component,
    s: fmi2StatusKind,
    value: *mut fmi2Status,
) -> fmi2Status {
    call(c, "fmi2GetStatus", allowed::GET_STATUS, |inst| {
        if value.is_null() {
            return Err("value is NULL".into());
        }
        if s == FMI2_DO_STEP_STATUS {
            *value = FMI2_OK;
            Ok(FMI2_OK)
        } else {
            inst.logger.log(
                FMI2_DISCARD,
                Category::Warning,
                &format!(
                    "fmi2GetStatus: status kind {s} is not an fmi2Status; use fmi2DoStepStatus (0)"
                ),
            );
            Ok(FMI2_DISCARD)
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn fmi2GetRealStatus(
    c: fmi2Component,
    s: fmi2StatusKind,
    value: *mut fmi2Real,
) -> fmi2Status {
    call(c, "fmi2GetRealStatus", allowed::GET_STATUS, |inst| {
        if value.is_null() {
            return Err("value is NULL".into());
        }
        if s == FMI2_LAST_SUCCESSFUL_TIME {
            *value = inst.world.time();
            Ok(FMI2_OK)
        } else {
            inst.logger.log(FMI2_DISCARD, Category::Warning, &format!("fmi2GetRealStatus: status kind {s} is not a Real status; use fmi2LastSuccessfulTime (2)"));
            Ok(FMI2_DISCARD)
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn fmi2GetIntegerStatus(
    c: fmi2Component,
    s: fmi2StatusKind,
    _value: *mut fmi2Integer,
) -> fmi2Status {
    call(c, "fmi2GetIntegerStatus", allowed::GET_STATUS, |inst| {
        inst.logger.log(
            FMI2_DISCARD,
            Category::Warning,
            &format!("fmi2GetIntegerStatus: FMI 2.0 defines no Integer status (kind {s})"),
        );
        Ok(FMI2_DISCARD)
    })
}

#[no_mangle]
pub unsafe extern "C" fn fmi2GetBooleanStatus(
    c: fmi2Component,
    s: fmi2StatusKind,
    value: *mut fmi2Boolean,
) -> fmi2Status {
    call(c, "fmi2GetBooleanStatus", allowed::GET_STATUS, |inst| {
        if value.is_null() {
            return Err("value is NULL".into());
        }
        if s == FMI2_TERMINATED {
            // The models never ask the master to stop.
            *value = FMI2_FALSE;
            Ok(FMI2_OK)
        } else {
            inst.logger.log(FMI2_DISCARD, Category::Warning, &format!("fmi2GetBooleanStatus: status kind {s} is not a Boolean status; use fmi2Terminated (3)"));
            Ok(FMI2_DISCARD)
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn fmi2GetStringStatus(
    c: fmi2Component,
    s: fmi2StatusKind,
    value: *mut fmi2String,
) -> fmi2Status {
    call(c, "fmi2GetStringStatus", allowed::GET_STATUS, |inst| {
        if value.is_null() {
            return Err("value is NULL".into());
        }
        if s == FMI2_PENDING_STATUS {
            // Steps are never pending.
            *value = c"".as_ptr();
            Ok(FMI2_OK)
        } else {
            inst.logger.log(FMI2_DISCARD, Category::Warning, &format!("fmi2GetStringStatus: status kind {s} is not a String status; use fmi2PendingStatus (1)"));
            Ok(FMI2_DISCARD)
        }
    })
}
