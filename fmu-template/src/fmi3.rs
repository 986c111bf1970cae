//! The FMI 3.0 Co-Simulation C API (fmi3Functions.h), beside the FMI 2.0 one in the
//! same library: an FMU packaged with `--fmi 3` carries this library unchanged under
//! `binaries/<arch>-<os>/`. Every call goes through the same prologue ([`crate::call`]:
//! NULL check, state machine, panic guard) and the same [`Instance`] as FMI 2.0; values
//! go through the FMI 3.0 view of the variable table
//! ([`contact_fmu::cosim::fmi3::Fmi3View`]), which the packager writes
//! modelDescription.xml from. What this FMU does not have (Model Exchange, Scheduled
//! Execution, event mode, clocks, Float32 and the other integer types, Binary,
//! structural parameters, derivatives) is refused with a message saying so.
#![allow(non_snake_case, non_camel_case_types, clippy::missing_safety_doc)]

use crate::fmi2_types::*;
use crate::instance::Instance;
use crate::logger::{Category, Fmi3LogMessage, Logger};
use crate::state_machine::{allowed, State};
use crate::{c_str, call, slice, slice_mut};
use contact_fmu::cosim::feedthrough;
use contact_fmu::cosim::fmi3::{collections, type_name, Fmi3Dependencies, Fmi3View, Layout};
use contact_fmu::cosim::variables::{Causality, Phase, VarType};
use std::collections::BTreeSet;
use std::ffi::CString;
use std::os::raw::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};

pub type fmi3Instance = *mut c_void;
pub type fmi3InstanceEnvironment = *mut c_void;
pub type fmi3FMUState = *mut c_void;
pub type fmi3ValueReference = u32;
pub type fmi3Float64 = f64;
pub type fmi3Int32 = i32;
/// C99 `bool`: one byte; read as a byte, so that a foreign value other than 0 or 1
/// is no undefined behaviour.
pub type fmi3Boolean = u8;
pub type fmi3String = *const c_char;
pub type fmi3Byte = u8;
pub type fmi3Binary = *const fmi3Byte;
pub type fmi3Status = i32;
pub type fmi3DependencyKind = i32;
pub type fmi3IntervalQualifier = i32;
/// `fmi3Dependent`.
pub const FMI3_DEPENDENT: fmi3DependencyKind = 5;

/// What an FMI 3.0 instance keeps beside the shared [`Instance`].
pub struct Fmi3Instance {
    pub view: Fmi3View,
    /// `<ModelStructure>` by value reference (made at the first dependency query).
    deps: Option<Fmi3Dependencies>,
    /// Scratch of the setters: the flattened table references.
    refs: Vec<u32>,
}

fn view(inst: &Instance) -> Result<&Fmi3View, String> {
    inst.fmi3
        .as_ref()
        .map(|f| &f.view)
        .ok_or_else(|| "this instance was made by fmi2Instantiate: call the fmi2* functions".into())
}

/// The variable of FMI 3.0 value reference `vr` and type `ty`, or why not.
fn lookup<'a>(
    view: &'a Fmi3View,
    ty: VarType,
    vr: u32,
) -> Result<&'a contact_fmu::cosim::fmi3::Fmi3Variable, String> {
    view.get(ty, vr)
        .ok_or_else(|| match view.variables.get(vr as usize) {
            Some(v) => format!(
                "value reference {vr} is '{}', a {} variable, not a {} one",
                v.name,
                v.type_name(),
                type_name(ty)
            ),
            None => format!(
                "no variable has value reference {vr} (this FMU has 0 to {})",
                view.variables.len() - 1
            ),
        })
}

/// The number of values `vrs` stand for, checked against `n_values`.
fn count_values(
    view: &Fmi3View,
    ty: VarType,
    vrs: &[u32],
    n_values: usize,
) -> Result<usize, String> {
    let mut n = 0;
    for &vr in vrs {
        let v = lookup(view, ty, vr)?;
        n += v.refs.len().max(1);
    }
    if n != n_values {
        return Err(format!(
            "nValues = {n_values}, but the {} variable(s) have {n} values",
            vrs.len()
        ));
    }
    Ok(n)
}

// ---------------------------------------------------------------------------------
// Inquire version, debug logging

#[no_mangle]
pub extern "C" fn fmi3GetVersion() -> *const c_char {
    c"3.0".as_ptr()
}

#[no_mangle]
pub unsafe extern "C" fn fmi3SetDebugLogging(
    c: fmi3Instance,
    loggingOn: fmi3Boolean,
    nCategories: usize,
    categories: *const fmi3String,
) -> fmi3Status {
    crate::set_debug_logging(
        c,
        "fmi3SetDebugLogging",
        loggingOn != 0,
        nCategories,
        categories,
    )
}

// ---------------------------------------------------------------------------------
// Creation and destruction

/// The resources folder from `resourcePath`: FMI 3.0 passes a file system path (with
/// a trailing separator); a `file:` URI, as some importers still pass, is accepted.
fn resource_folder(path: &str) -> Result<std::path::PathBuf, String> {
    if path.starts_with("file:") {
        return crate::resource_uri::resource_dir(path);
    }
    if path.is_empty() {
        return Err("resourcePath is empty: this FMU reads its scenario from resources/".into());
    }
    Ok(std::path::PathBuf::from(path))
}

#[no_mangle]
pub unsafe extern "C" fn fmi3InstantiateCoSimulation(
    instanceName: fmi3String,
    instantiationToken: fmi3String,
    resourcePath: fmi3String,
    _visible: fmi3Boolean,
    loggingOn: fmi3Boolean,
    eventModeUsed: fmi3Boolean,
    _earlyReturnAllowed: fmi3Boolean,
    _requiredIntermediateVariables: *const fmi3ValueReference,
    _nRequiredIntermediateVariables: usize,
    instanceEnvironment: fmi3InstanceEnvironment,
    logMessage: Option<Fmi3LogMessage>,
    _intermediateUpdate: *const c_void,
) -> fmi3Instance {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let name = match c_str(instanceName, "instanceName") {
            Ok(n) if !n.trim().is_empty() => n.to_string(),
            _ => String::from("?"),
        };
        let logger = || Logger::fmi3(logMessage, instanceEnvironment, &name, loggingOn != 0);
        let fail = |msg: String| {
            logger().log(
                FMI2_ERROR,
                Category::Error,
                &format!("fmi3InstantiateCoSimulation: {msg}"),
            );
            std::ptr::null_mut()
        };
        if name == "?" {
            return fail("instanceName must be a non-empty string".into());
        }
        if eventModeUsed != 0 {
            return fail(
                "eventModeUsed = true, but this FMU has no event mode (hasEventMode=\"false\")"
                    .into(),
            );
        }
        let token = match c_str(instantiationToken, "instantiationToken") {
            Ok(g) => g.to_string(),
            Err(e) => return fail(e),
        };
        let dir = match c_str(resourcePath, "resourcePath").and_then(resource_folder) {
            Ok(d) => d,
            Err(e) => return fail(e),
        };
        let layout = match Layout::of_resources(&dir) {
            Ok(l) => l,
            Err(e) => return fail(e),
        };
        match Instance::new(&name, &token, &dir, logger()) {
            Ok(mut inst) => {
                inst.fmi3 = Some(Box::new(Fmi3Instance {
                    view: Fmi3View::with_layout(
                        inst.world.table(),
                        layout,
                        &collections(&inst.scenario),
                    ),
                    deps: None,
                    refs: vec![],
                }));
                inst.event(&format!(
                    "instantiated (FMI 3.0) from {} ({} variables)",
                    dir.display(),
                    inst.fmi3.as_ref().map_or(0, |f| f.view.variables.len())
                ));
                Box::into_raw(Box::new(inst)) as fmi3Instance
            }
            Err(e) => fail(e),
        }
    }));
    result.unwrap_or(std::ptr::null_mut())
}

#[no_mangle]
pub unsafe extern "C" fn fmi3InstantiateModelExchange(
    instanceName: fmi3String,
    _instantiationToken: fmi3String,
    _resourcePath: fmi3String,
    _visible: fmi3Boolean,
    _loggingOn: fmi3Boolean,
    instanceEnvironment: fmi3InstanceEnvironment,
    logMessage: Option<Fmi3LogMessage>,
) -> fmi3Instance {
    refuse_instantiation(
        instanceName,
        instanceEnvironment,
        logMessage,
        "fmi3InstantiateModelExchange",
        "Model Exchange",
    )
}

#[no_mangle]
pub unsafe extern "C" fn fmi3InstantiateScheduledExecution(
    instanceName: fmi3String,
    _instantiationToken: fmi3String,
    _resourcePath: fmi3String,
    _visible: fmi3Boolean,
    _loggingOn: fmi3Boolean,
    instanceEnvironment: fmi3InstanceEnvironment,
    logMessage: Option<Fmi3LogMessage>,
    _clockUpdate: *const c_void,
    _lockPreemption: *const c_void,
    _unlockPreemption: *const c_void,
) -> fmi3Instance {
    refuse_instantiation(
        instanceName,
        instanceEnvironment,
        logMessage,
        "fmi3InstantiateScheduledExecution",
        "Scheduled Execution",
    )
}

unsafe fn refuse_instantiation(
    instanceName: fmi3String,
    environment: fmi3InstanceEnvironment,
    logMessage: Option<Fmi3LogMessage>,
    func: &str,
    kind: &str,
) -> fmi3Instance {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        let name = c_str(instanceName, "instanceName")
            .unwrap_or("?")
            .to_string();
        Logger::fmi3(logMessage, environment, &name, true).log(
            FMI2_ERROR,
            Category::Error,
            &format!("{func}: this FMU supports Co-Simulation only, not {kind} (use fmi3InstantiateCoSimulation)"),
        );
    }));
    std::ptr::null_mut()
}

#[no_mangle]
pub unsafe extern "C" fn fmi3FreeInstance(c: fmi3Instance) {
    crate::fmi2FreeInstance(c)
}

// ---------------------------------------------------------------------------------
// Initialization, termination, reset

#[no_mangle]
pub unsafe extern "C" fn fmi3EnterInitializationMode(
    c: fmi3Instance,
    toleranceDefined: fmi3Boolean,
    tolerance: fmi3Float64,
    startTime: fmi3Float64,
    stopTimeDefined: fmi3Boolean,
    stopTime: fmi3Float64,
) -> fmi3Status {
    call(
        c,
        "fmi3EnterInitializationMode",
        allowed::ENTER_INITIALIZATION_MODE,
        |inst| {
            view(inst)?;
            crate::setup_experiment(
                inst,
                toleranceDefined != 0,
                tolerance,
                startTime,
                (stopTimeDefined != 0).then_some(stopTime),
            )?;
            inst.world.enter_initialization();
            inst.state = State::InitializationMode;
            Ok(FMI2_OK)
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn fmi3ExitInitializationMode(c: fmi3Instance) -> fmi3Status {
    call(
        c,
        "fmi3ExitInitializationMode",
        allowed::EXIT_INITIALIZATION_MODE,
        crate::exit_initialization,
    )
}

#[no_mangle]
pub unsafe extern "C" fn fmi3EnterEventMode(c: fmi3Instance) -> fmi3Status {
    unsupported(
        c,
        "fmi3EnterEventMode",
        "this FMU has no event mode (hasEventMode=\"false\")",
    )
}

#[no_mangle]
pub unsafe extern "C" fn fmi3EnterStepMode(c: fmi3Instance) -> fmi3Status {
    unsupported(c, "fmi3EnterStepMode", "this FMU has no event mode (hasEventMode=\"false\"): it is in Step Mode after fmi3ExitInitializationMode")
}

#[no_mangle]
pub unsafe extern "C" fn fmi3Terminate(c: fmi3Instance) -> fmi3Status {
    call(c, "fmi3Terminate", allowed::TERMINATE, crate::terminate)
}

#[no_mangle]
pub unsafe extern "C" fn fmi3Reset(c: fmi3Instance) -> fmi3Status {
    call(c, "fmi3Reset", allowed::RESET, |inst| {
        inst.reset()?;
        inst.event("reset to the state after fmi3InstantiateCoSimulation");
        Ok(FMI2_OK)
    })
}

// ---------------------------------------------------------------------------------
// Getting and setting values

/// Reads the values of `vrs` (type `ty`) into `out` (flattened, `nValues` long)
/// through `get(world, table refs, out slice)`; `time` reads the world's time.
unsafe fn get_values<T: Copy + Default>(
    c: fmi3Instance,
    func: &str,
    ty: VarType,
    vr: *const fmi3ValueReference,
    nvr: usize,
    values: *mut T,
    nValues: usize,
    get: impl Fn(&mut Instance, &[u32], &mut [T]) -> Result<(), String>,
    time: impl Fn(f64) -> T,
) -> fmi3Status {
    call(c, func, allowed::GET_VALUES, |inst| {
        let vrs = slice(vr, nvr, "valueReferences")?;
        let out = slice_mut(values, nValues, "values")?;
        count_values(view(inst)?, ty, vrs, nValues)?;
        let mut k = 0;
        for &r in vrs {
            if r == 0 {
                out[k] = time(inst.world.time());
                k += 1;
                continue;
            }
            // the references of one variable (borrowed apart from the world)
            let fmi3 = inst.fmi3.take().ok_or("no FMI 3.0 view")?;
            let refs = &fmi3.view.variables[r as usize].refs;
            let n = refs.len();
            let result = get(inst, refs, &mut out[k..k + n]);
            inst.fmi3 = Some(fmi3);
            result?;
            k += n;
        }
        Ok(FMI2_OK)
    })
}

#[no_mangle]
pub unsafe extern "C" fn fmi3GetFloat64(
    c: fmi3Instance,
    vr: *const fmi3ValueReference,
    nvr: usize,
    values: *mut fmi3Float64,
    nValues: usize,
) -> fmi3Status {
    get_values(
        c,
        "fmi3GetFloat64",
        VarType::Real,
        vr,
        nvr,
        values,
        nValues,
        |inst, refs, out| inst.world.get_reals(refs, out).map_err(|e| e.to_string()),
        |t| t,
    )
}

#[no_mangle]
pub unsafe extern "C" fn fmi3GetInt32(
    c: fmi3Instance,
    vr: *const fmi3ValueReference,
    nvr: usize,
    values: *mut fmi3Int32,
    nValues: usize,
) -> fmi3Status {
    get_values(
        c,
        "fmi3GetInt32",
        VarType::Integer,
        vr,
        nvr,
        values,
        nValues,
        |inst, refs, out| {
            inst.world
                .get_integers(refs, out)
                .map_err(|e| e.to_string())
        },
        |_| 0,
    )
}

#[no_mangle]
pub unsafe extern "C" fn fmi3GetBoolean(
    c: fmi3Instance,
    vr: *const fmi3ValueReference,
    nvr: usize,
    values: *mut fmi3Boolean,
    nValues: usize,
) -> fmi3Status {
    get_values(
        c,
        "fmi3GetBoolean",
        VarType::Boolean,
        vr,
        nvr,
        values,
        nValues,
        |inst, refs, out| {
            for (o, r) in out.iter_mut().zip(refs) {
                let mut b = [false];
                inst.world
                    .get_booleans(std::slice::from_ref(r), &mut b)
                    .map_err(|e| e.to_string())?;
                *o = b[0] as u8;
            }
            Ok(())
        },
        |_| 0,
    )
}

#[no_mangle]
pub unsafe extern "C" fn fmi3GetString(
    c: fmi3Instance,
    vr: *const fmi3ValueReference,
    nvr: usize,
    values: *mut fmi3String,
    nValues: usize,
) -> fmi3Status {
    call(c, "fmi3GetString", allowed::GET_VALUES, |inst| {
        let vrs = slice(vr, nvr, "valueReferences")?;
        let out = slice_mut(values, nValues, "values")?;
        count_values(view(inst)?, VarType::String, vrs, nValues)?;
        let fmi3 = inst.fmi3.take().ok_or("no FMI 3.0 view")?;
        inst.string_buffer.clear();
        let mut result = Ok(());
        'all: for &r in vrs {
            for &t in &fmi3.view.variables[r as usize].refs {
                match inst.world.get_string(t) {
                    Ok(s) => inst
                        .string_buffer
                        .push(CString::new(s.replace('\0', "")).unwrap_or_default()),
                    Err(e) => {
                        result = Err(e.to_string());
                        break 'all;
                    }
                }
            }
        }
        inst.fmi3 = Some(fmi3);
        result?;
        for (o, s) in out.iter_mut().zip(&inst.string_buffer) {
            *o = s.as_ptr();
        }
        Ok(FMI2_OK)
    })
}

/// The table references of `vrs` (type `ty`), flattened into the instance's scratch,
/// checked against `n_values`; `time` cannot be set.
fn flatten(
    inst: &mut Instance,
    ty: VarType,
    vrs: &[u32],
    n_values: usize,
) -> Result<Vec<u32>, String> {
    let fmi3 = inst
        .fmi3
        .as_mut()
        .ok_or("this instance was made by fmi2Instantiate: call the fmi2* functions")?;
    count_values(&fmi3.view, ty, vrs, n_values)?;
    let mut refs = std::mem::take(&mut fmi3.refs);
    refs.clear();
    for &r in vrs {
        if r == 0 {
            fmi3.refs = refs;
            return Err(
                "value reference 0 is 'time', the independent variable: it cannot be set".into(),
            );
        }
        refs.extend_from_slice(&fmi3.view.variables[r as usize].refs);
    }
    Ok(refs)
}

/// Gives the scratch of [`flatten`] back.
fn give_back(inst: &mut Instance, refs: Vec<u32>) {
    if let Some(f) = inst.fmi3.as_mut() {
        f.refs = refs;
    }
}

/// Writes `values` (flattened, `nValues` long) to the variables `vrs` of type `ty`
/// through `set(world, table refs, values, phase)`: every value is checked before any
/// is written, as in FMI 2.0.
#[allow(clippy::too_many_arguments)]
unsafe fn set_values<T>(
    c: fmi3Instance,
    func: &str,
    ty: VarType,
    vr: *const fmi3ValueReference,
    nvr: usize,
    values: *const T,
    nValues: usize,
    set: impl Fn(&mut contact_fmu::cosim::World, &[u32], &[T], Phase) -> Result<(), String>,
) -> fmi3Status {
    call(c, func, allowed::SET_VALUES, |inst| {
        let vrs = slice(vr, nvr, "valueReferences")?;
        let vals = slice(values, nValues, "values")?;
        let refs = flatten(inst, ty, vrs, nValues)?;
        let phase = inst.phase();
        let r = set(&mut inst.world, &refs, vals, phase);
        give_back(inst, refs);
        r.map(|_| FMI2_OK)
    })
}

#[no_mangle]
pub unsafe extern "C" fn fmi3SetFloat64(
    c: fmi3Instance,
    vr: *const fmi3ValueReference,
    nvr: usize,
    values: *const fmi3Float64,
    nValues: usize,
) -> fmi3Status {
    set_values(
        c,
        "fmi3SetFloat64",
        VarType::Real,
        vr,
        nvr,
        values,
        nValues,
        |w, r, v, p| w.set_reals(r, v, p).map_err(|e| e.to_string()),
    )
}

#[no_mangle]
pub unsafe extern "C" fn fmi3SetInt32(
    c: fmi3Instance,
    vr: *const fmi3ValueReference,
    nvr: usize,
    values: *const fmi3Int32,
    nValues: usize,
) -> fmi3Status {
    set_values(
        c,
        "fmi3SetInt32",
        VarType::Integer,
        vr,
        nvr,
        values,
        nValues,
        |w, r, v, p| w.set_integers(r, v, p).map_err(|e| e.to_string()),
    )
}

#[no_mangle]
pub unsafe extern "C" fn fmi3SetBoolean(
    c: fmi3Instance,
    vr: *const fmi3ValueReference,
    nvr: usize,
    values: *const fmi3Boolean,
    nValues: usize,
) -> fmi3Status {
    set_values(
        c,
        "fmi3SetBoolean",
        VarType::Boolean,
        vr,
        nvr,
        values,
        nValues,
        |w, r, v, p| {
            let v: Vec<bool> = v.iter().map(|&x| x != 0).collect();
            w.set_booleans(r, &v, p).map_err(|e| e.to_string())
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn fmi3SetString(
    c: fmi3Instance,
    vr: *const fmi3ValueReference,
    nvr: usize,
    values: *const fmi3String,
    nValues: usize,
) -> fmi3Status {
    set_values(
        c,
        "fmi3SetString",
        VarType::String,
        vr,
        nvr,
        values,
        nValues,
        |w, r, v, p| {
            let v = v
                .iter()
                .enumerate()
                .map(|(i, ptr)| c_str(*ptr, &format!("values[{i}]")).map(str::to_string))
                .collect::<Result<Vec<_>, _>>()?;
            w.set_strings(r, &v, p).map_err(|e| e.to_string())
        },
    )
}

/// A getter or setter of a type this FMU has no variable of: only an empty call is
/// fine.
unsafe fn no_such_type(
    c: fmi3Instance,
    func: &str,
    vr: *const fmi3ValueReference,
    nvr: usize,
    what: &str,
) -> fmi3Status {
    let get = func.starts_with("fmi3Get");
    let mask = if get {
        allowed::GET_VALUES
    } else {
        allowed::SET_VALUES
    };
    call(c, func, mask, |inst| {
        let vrs = slice(vr, nvr, "valueReferences")?;
        match vrs.first() {
            None => Ok(FMI2_OK),
            Some(&r) => {
                let v = view(inst)?;
                Err(match v.variables.get(r as usize) {
                    Some(var) => format!(
                        "value reference {r} is '{}', a {} variable; this FMU has no {what} variables",
                        var.name,
                        var.type_name()
                    ),
                    None => format!("no variable has value reference {r}; this FMU has no {what} variables"),
                })
            }
        }
    })
}

macro_rules! absent_type {
    ($get:ident, $set:ident, $t:ty, $what:literal) => {
        #[no_mangle]
        pub unsafe extern "C" fn $get(
            c: fmi3Instance,
            vr: *const fmi3ValueReference,
            nvr: usize,
            _values: *mut $t,
            _nValues: usize,
        ) -> fmi3Status {
            no_such_type(c, stringify!($get), vr, nvr, $what)
        }

        #[no_mangle]
        pub unsafe extern "C" fn $set(
            c: fmi3Instance,
            vr: *const fmi3ValueReference,
            nvr: usize,
            _values: *const $t,
            _nValues: usize,
        ) -> fmi3Status {
            no_such_type(c, stringify!($set), vr, nvr, $what)
        }
    };
}

absent_type!(fmi3GetFloat32, fmi3SetFloat32, f32, "Float32");
absent_type!(fmi3GetInt8, fmi3SetInt8, i8, "Int8");
absent_type!(fmi3GetUInt8, fmi3SetUInt8, u8, "UInt8");
absent_type!(fmi3GetInt16, fmi3SetInt16, i16, "Int16");
absent_type!(fmi3GetUInt16, fmi3SetUInt16, u16, "UInt16");
absent_type!(fmi3GetUInt32, fmi3SetUInt32, u32, "UInt32");
absent_type!(fmi3GetInt64, fmi3SetInt64, i64, "Int64");

// ---------------------------------------------------------------------------------
// Structural parameters: the collections' sizes (UInt64, fixed)

/// The sizes of `vrs`, each a collection's, checked against `n_values`.
fn sizes(view: &Fmi3View, vrs: &[u32], n_values: usize) -> Result<Vec<u64>, String> {
    if vrs.len() != n_values {
        return Err(format!(
            "nValues = {n_values}, but the {} variable(s) have {} values",
            vrs.len(),
            vrs.len()
        ));
    }
    vrs.iter()
        .map(|&r| {
            view.count(r).ok_or_else(|| match view.variables.get(r as usize) {
                Some(v) => format!(
                    "value reference {r} is '{}', a {} variable, not a UInt64 one (this FMU's UInt64 variables are the collections' sizes)",
                    v.name,
                    v.type_name()
                ),
                None => format!(
                    "no variable has value reference {r} (this FMU has 0 to {})",
                    view.variables.len() - 1
                ),
            })
        })
        .collect()
}

#[no_mangle]
pub unsafe extern "C" fn fmi3GetUInt64(
    c: fmi3Instance,
    vr: *const fmi3ValueReference,
    nvr: usize,
    values: *mut u64,
    nValues: usize,
) -> fmi3Status {
    call(c, "fmi3GetUInt64", allowed::GET_STRUCTURAL, |inst| {
        let vrs = slice(vr, nvr, "valueReferences")?;
        let out = slice_mut(values, nValues, "values")?;
        for (o, n) in out.iter_mut().zip(sizes(view(inst)?, vrs, nValues)?) {
            *o = n;
        }
        Ok(FMI2_OK)
    })
}

/// A collection's size is fixed by the scenario: setting it to the value it has is
/// fine, any other is refused (its bodies' shapes, masses and starts are the
/// scenario's).
#[no_mangle]
pub unsafe extern "C" fn fmi3SetUInt64(
    c: fmi3Instance,
    vr: *const fmi3ValueReference,
    nvr: usize,
    values: *const u64,
    nValues: usize,
) -> fmi3Status {
    call(c, "fmi3SetUInt64", allowed::SET_STRUCTURAL, |inst| {
        let vrs = slice(vr, nvr, "valueReferences")?;
        let vals = slice(values, nValues, "values")?;
        let view = view(inst)?;
        for ((&r, &n), &v) in vrs.iter().zip(sizes(view, vrs, nValues)?.iter()).zip(vals) {
            if v != n {
                return Err(format!(
                    "'{}' is {n}, the number of bodies the scenario puts in the collection, and cannot be {v}: package a scenario with {v} bodies in it",
                    view.variables[r as usize].name
                ));
            }
        }
        Ok(FMI2_OK)
    })
}

/// Whether the instance's FMU has structural parameters (collections' sizes).
fn configurable(inst: &Instance) -> Result<(), String> {
    if view(inst)?.variables.iter().any(|v| v.count.is_some()) {
        Ok(())
    } else {
        Err("this FMU has no structural parameters to configure".into())
    }
}

#[no_mangle]
pub unsafe extern "C" fn fmi3EnterConfigurationMode(c: fmi3Instance) -> fmi3Status {
    call(
        c,
        "fmi3EnterConfigurationMode",
        allowed::ENTER_CONFIGURATION_MODE,
        |inst| {
            configurable(inst)?;
            inst.state = State::ConfigurationMode;
            Ok(FMI2_OK)
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn fmi3ExitConfigurationMode(c: fmi3Instance) -> fmi3Status {
    call(
        c,
        "fmi3ExitConfigurationMode",
        allowed::EXIT_CONFIGURATION_MODE,
        |inst| {
            inst.state = State::Instantiated;
            Ok(FMI2_OK)
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn fmi3GetBinary(
    c: fmi3Instance,
    vr: *const fmi3ValueReference,
    nvr: usize,
    _valueSizes: *mut usize,
    _values: *mut fmi3Binary,
    _nValues: usize,
) -> fmi3Status {
    no_such_type(c, "fmi3GetBinary", vr, nvr, "Binary")
}

#[no_mangle]
pub unsafe extern "C" fn fmi3SetBinary(
    c: fmi3Instance,
    vr: *const fmi3ValueReference,
    nvr: usize,
    _valueSizes: *const usize,
    _values: *const fmi3Binary,
    _nValues: usize,
) -> fmi3Status {
    no_such_type(c, "fmi3SetBinary", vr, nvr, "Binary")
}

#[no_mangle]
pub unsafe extern "C" fn fmi3GetClock(
    c: fmi3Instance,
    vr: *const fmi3ValueReference,
    nvr: usize,
    _values: *mut fmi3Boolean,
) -> fmi3Status {
    no_such_type(c, "fmi3GetClock", vr, nvr, "Clock")
}

#[no_mangle]
pub unsafe extern "C" fn fmi3SetClock(
    c: fmi3Instance,
    vr: *const fmi3ValueReference,
    nvr: usize,
    _values: *const fmi3Boolean,
) -> fmi3Status {
    no_such_type(c, "fmi3SetClock", vr, nvr, "Clock")
}

// ---------------------------------------------------------------------------------
// Variable dependencies

/// The knowns `vr` depends on in the current state (Initialization Mode: as an
/// initial unknown; else as an output), every known where the list was too long.
fn dependencies_of(inst: &mut Instance, vr: u32) -> Result<Vec<u32>, String> {
    let init = matches!(inst.state, State::Instantiated | State::InitializationMode);
    let scenario = inst.scenario.clone();
    let fmi3 = inst
        .fmi3
        .as_mut()
        .ok_or("this instance was made by fmi2Instantiate")?;
    if fmi3.deps.is_none() {
        let (table, layout, models) = contact_fmu::registry::layout(&scenario);
        let deps = feedthrough::resolve(&table, &layout, |k, f| models[k].feedthrough(f));
        fmi3.deps = Some(fmi3.view.dependencies(&deps));
    }
    let (view, deps) = (&fmi3.view, fmi3.deps.as_ref().ok_or("no dependencies")?);
    let (first, second) = if init {
        (&deps.initial, &deps.outputs)
    } else {
        (&deps.outputs, &deps.initial)
    };
    let entry = first.get(&vr).or_else(|| second.get(&vr)).ok_or_else(|| {
        match view.variables.get(vr as usize) {
            Some(v) => format!("'{}' (value reference {vr}) is not an output or initial unknown: it has no dependencies", v.name),
            None => format!("no variable has value reference {vr}"),
        }
    })?;
    Ok(match entry {
        Some(set) => set.iter().copied().collect(),
        None => {
            // every known: the inputs, and in initialization the parameters too
            let table = inst.world.table();
            let known: BTreeSet<u32> = view
                .variables
                .iter()
                .filter(|v| {
                    v.members.first().is_some_and(|&p| {
                        let c = table.variables[p].causality;
                        c == Causality::Input || (init && c == Causality::Parameter)
                    })
                })
                .map(|v| v.vr)
                .collect();
            known.into_iter().collect()
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn fmi3GetNumberOfVariableDependencies(
    c: fmi3Instance,
    valueReference: fmi3ValueReference,
    nDependencies: *mut usize,
) -> fmi3Status {
    call(
        c,
        "fmi3GetNumberOfVariableDependencies",
        allowed::RESET,
        |inst| {
            if nDependencies.is_null() {
                return Err("nDependencies is NULL".into());
            }
            *nDependencies = dependencies_of(inst, valueReference)?.len();
            Ok(FMI2_OK)
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn fmi3GetVariableDependencies(
    c: fmi3Instance,
    dependent: fmi3ValueReference,
    elementIndicesOfDependent: *mut usize,
    independents: *mut fmi3ValueReference,
    elementIndicesOfIndependents: *mut usize,
    dependencyKinds: *mut fmi3DependencyKind,
    nDependencies: usize,
) -> fmi3Status {
    call(c, "fmi3GetVariableDependencies", allowed::RESET, |inst| {
        let list = dependencies_of(inst, dependent)?;
        if list.len() != nDependencies {
            return Err(format!(
                "nDependencies = {nDependencies}, but value reference {dependent} has {} (ask fmi3GetNumberOfVariableDependencies)",
                list.len()
            ));
        }
        let n = list.len();
        // no per-element dependencies (providesPerElementDependencies="false"):
        // element index 0 stands for the whole variable
        slice_mut(elementIndicesOfDependent, n, "elementIndicesOfDependent")?.fill(0);
        slice_mut(independents, n, "independents")?.copy_from_slice(&list);
        slice_mut(
            elementIndicesOfIndependents,
            n,
            "elementIndicesOfIndependents",
        )?
        .fill(0);
        slice_mut(dependencyKinds, n, "dependencyKinds")?.fill(FMI3_DEPENDENT);
        Ok(FMI2_OK)
    })
}

// ---------------------------------------------------------------------------------
// FMU state (the same snapshots and serialization as FMI 2.0)

#[no_mangle]
pub unsafe extern "C" fn fmi3GetFMUState(
    c: fmi3Instance,
    FMUState: *mut fmi3FMUState,
) -> fmi3Status {
    crate::get_fmu_state(c, "fmi3GetFMUState", FMUState)
}

#[no_mangle]
pub unsafe extern "C" fn fmi3SetFMUState(c: fmi3Instance, FMUState: fmi3FMUState) -> fmi3Status {
    crate::set_fmu_state(c, "fmi3SetFMUState", FMUState)
}

#[no_mangle]
pub unsafe extern "C" fn fmi3FreeFMUState(
    c: fmi3Instance,
    FMUState: *mut fmi3FMUState,
) -> fmi3Status {
    crate::free_fmu_state(c, "fmi3FreeFMUState", FMUState)
}

#[no_mangle]
pub unsafe extern "C" fn fmi3SerializedFMUStateSize(
    c: fmi3Instance,
    FMUState: fmi3FMUState,
    size: *mut usize,
) -> fmi3Status {
    crate::serialized_size(c, "fmi3SerializedFMUStateSize", FMUState, size)
}

#[no_mangle]
pub unsafe extern "C" fn fmi3SerializeFMUState(
    c: fmi3Instance,
    FMUState: fmi3FMUState,
    serializedState: *mut fmi3Byte,
    size: usize,
) -> fmi3Status {
    crate::serialize(c, "fmi3SerializeFMUState", FMUState, serializedState, size)
}

#[no_mangle]
pub unsafe extern "C" fn fmi3DeserializeFMUState(
    c: fmi3Instance,
    serializedState: *const fmi3Byte,
    size: usize,
    FMUState: *mut fmi3FMUState,
) -> fmi3Status {
    crate::deserialize(
        c,
        "fmi3DeserializeFMUState",
        serializedState,
        size,
        FMUState,
    )
}

// ---------------------------------------------------------------------------------
// Stepping

#[no_mangle]
pub unsafe extern "C" fn fmi3DoStep(
    c: fmi3Instance,
    currentCommunicationPoint: fmi3Float64,
    communicationStepSize: fmi3Float64,
    _noSetFMUStatePriorToCurrentPoint: fmi3Boolean,
    eventHandlingNeeded: *mut fmi3Boolean,
    terminateSimulation: *mut fmi3Boolean,
    earlyReturn: *mut fmi3Boolean,
    lastSuccessfulTime: *mut fmi3Float64,
) -> fmi3Status {
    call(c, "fmi3DoStep", allowed::DO_STEP, |inst| {
        for (p, name) in [
            (eventHandlingNeeded, "eventHandlingNeeded"),
            (terminateSimulation, "terminateSimulation"),
            (earlyReturn, "earlyReturn"),
        ] {
            if p.is_null() {
                return Err(format!("{name} is NULL"));
            }
        }
        if lastSuccessfulTime.is_null() {
            return Err("lastSuccessfulTime is NULL".into());
        }
        let status = crate::step(inst, currentCommunicationPoint, communicationStepSize);
        // the whole step or none: no event, no early return, never a request to stop
        *eventHandlingNeeded = 0;
        *terminateSimulation = 0;
        *earlyReturn = 0;
        *lastSuccessfulTime = inst.world.time();
        status
    })
}

// ---------------------------------------------------------------------------------
// What this FMU does not provide

/// Refuses `func` with `why` (the instance goes to Error, as for any refused call).
unsafe fn unsupported(c: fmi3Instance, func: &str, why: &str) -> fmi3Status {
    call(c, func, allowed::FMU_STATE | allowed::GET_VALUES, |_| {
        Err(why.to_string())
    })
}

macro_rules! refused {
    ($name:ident ( $($arg:ident : $t:ty),* ) => $why:expr) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name(c: fmi3Instance $(, $arg: $t)*) -> fmi3Status {
            $(let _ = $arg;)*
            unsupported(c, stringify!($name), $why)
        }
    };
}

const NO_DERIVATIVES: &str = "not provided by this FMU (providesDirectionalDerivatives and providesAdjointDerivatives are false)";
const NO_CLOCKS: &str = "this FMU has no clocks";
const ME_ONLY: &str = "a Model Exchange function; this FMU is Co-Simulation only";

refused!(fmi3GetDirectionalDerivative(unknowns: *const u32, nUnknowns: usize, knowns: *const u32, nKnowns: usize, seed: *const f64, nSeed: usize, sensitivity: *mut f64, nSensitivity: usize) => NO_DERIVATIVES);
refused!(fmi3GetAdjointDerivative(unknowns: *const u32, nUnknowns: usize, knowns: *const u32, nKnowns: usize, seed: *const f64, nSeed: usize, sensitivity: *mut f64, nSensitivity: usize) => NO_DERIVATIVES);
refused!(fmi3GetIntervalDecimal(vr: *const u32, nvr: usize, intervals: *mut f64, qualifiers: *mut fmi3IntervalQualifier) => NO_CLOCKS);
refused!(fmi3GetIntervalFraction(vr: *const u32, nvr: usize, counters: *mut u64, resolutions: *mut u64, qualifiers: *mut fmi3IntervalQualifier) => NO_CLOCKS);
refused!(fmi3GetShiftDecimal(vr: *const u32, nvr: usize, shifts: *mut f64) => NO_CLOCKS);
refused!(fmi3GetShiftFraction(vr: *const u32, nvr: usize, counters: *mut u64, resolutions: *mut u64) => NO_CLOCKS);
refused!(fmi3SetIntervalDecimal(vr: *const u32, nvr: usize, intervals: *const f64) => NO_CLOCKS);
refused!(fmi3SetIntervalFraction(vr: *const u32, nvr: usize, counters: *const u64, resolutions: *const u64) => NO_CLOCKS);
refused!(fmi3SetShiftDecimal(vr: *const u32, nvr: usize, shifts: *const f64) => NO_CLOCKS);
refused!(fmi3SetShiftFraction(vr: *const u32, nvr: usize, counters: *const u64, resolutions: *const u64) => NO_CLOCKS);
refused!(fmi3EvaluateDiscreteStates() => "this FMU has no event mode (providesEvaluateDiscreteStates=\"false\")");
refused!(fmi3UpdateDiscreteStates(discreteStatesNeedUpdate: *mut u8, terminateSimulation: *mut u8, nominalsChanged: *mut u8, valuesChanged: *mut u8, nextEventTimeDefined: *mut u8, nextEventTime: *mut f64) => "this FMU has no event mode (hasEventMode=\"false\")");
refused!(fmi3EnterContinuousTimeMode() => ME_ONLY);
refused!(fmi3CompletedIntegratorStep(noSetFMUStatePriorToCurrentPoint: u8, enterEventMode: *mut u8, terminateSimulation: *mut u8) => ME_ONLY);
refused!(fmi3SetTime(time: f64) => ME_ONLY);
refused!(fmi3SetContinuousStates(x: *const f64, nx: usize) => ME_ONLY);
refused!(fmi3GetContinuousStateDerivatives(derivatives: *mut f64, nx: usize) => ME_ONLY);
refused!(fmi3GetEventIndicators(indicators: *mut f64, n: usize) => ME_ONLY);
refused!(fmi3GetContinuousStates(x: *mut f64, nx: usize) => ME_ONLY);
refused!(fmi3GetNominalsOfContinuousStates(nominals: *mut f64, nx: usize) => ME_ONLY);
refused!(fmi3GetNumberOfEventIndicators(n: *mut usize) => ME_ONLY);
refused!(fmi3GetNumberOfContinuousStates(n: *mut usize) => ME_ONLY);
refused!(fmi3GetOutputDerivatives(vr: *const u32, nvr: usize, orders: *const i32, values: *mut f64, nValues: usize) => "output derivatives are not provided (maxOutputDerivativeOrder=\"0\")");
refused!(fmi3ActivateModelPartition(clockReference: u32, activationTime: f64) => "a Scheduled Execution function; this FMU is Co-Simulation only");
